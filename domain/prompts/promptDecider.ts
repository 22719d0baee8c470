import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import type { JsonObject } from '../base/jsonValue.ts';
import { MESSAGE_MAX_BYTES, storableText } from '../base/storableText.ts';
import type { PromptCommand } from './commands.ts';
import type { PromptEvent, PromptUpdated } from './events.ts';
import { identifierProblem } from './promptName.ts';
import type { ActivePrompt, PromptState } from './promptState.ts';
import { jsonProblems, promptVersionProblems, type PromptProblem } from './promptVersion.ts';

/** Thrown with every problem of a version (at most five), each naming its field. */
export class InvalidPromptVersionError extends DomainError {
  constructor(readonly problems: readonly PromptProblem[]) {
    super('invalid_prompt_version', problems.map((p) => `version.${p.path}: ${p.message}`).join('; '));
  }
}

const promptNotFound = (promptId: string) => new DomainError('prompt_not_found', `Prompt ${promptId} not found`, 'not_found');

/** The prompt the command addresses; a deleted or re-created one is "not found". */
const activePrompt = (state: PromptState, promptId: string): ActivePrompt => {
  if (state.status !== 'active' || state.promptId !== promptId) throw promptNotFound(promptId);
  return state;
};

const checkDescription = (field: string, value: string | null | undefined): void => {
  if (typeof value !== 'string') return;
  if (storableText(value) !== value)
    throw new DomainError('invalid_description', `${field}: must not contain NUL characters or unpaired UTF-16 surrogates`);
  if (Buffer.byteLength(value, 'utf8') > MESSAGE_MAX_BYTES)
    throw new DomainError('invalid_description', `${field}: must be at most ${MESSAGE_MAX_BYTES} bytes of UTF-8`);
};

const checkMetadata = (value: JsonObject | undefined): void => {
  if (value === undefined) return;
  const problems: PromptProblem[] = [];
  jsonProblems('metadata', value, problems);
  if (problems.length > 0) throw new DomainError('invalid_metadata', problems.map((p) => `${p.path}: ${p.message}`).join('; '));
};

const checkName = (code: string, field: string, name: string): void => {
  const problem = identifierProblem(name);
  if (problem !== null) throw new DomainError(code, `${field}: ${problem}`);
};

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

const decide = (c: PromptCommand, state: PromptState): PromptEvent[] => {
  switch (c.type) {
    case 'AddPromptVersion': {
      checkName('invalid_prompt_name', 'name', c.name);
      const problems = promptVersionProblems(c.version);
      if (problems.length > 0) throw new InvalidPromptVersionError(problems);
      if (state.status === 'active') {
        if (state.versions.includes(c.versionId)) return [];
        return [{ type: 'PromptVersionAdded', data: { promptId: state.promptId, versionId: c.versionId, version: c.version } }];
      }
      checkDescription('description', c.description);
      checkMetadata(c.metadata);
      return [
        {
          type: 'PromptCreated',
          data: { promptId: c.promptId, name: c.name, description: c.description, metadata: c.metadata, sourcePromptId: c.sourcePromptId },
        },
        { type: 'PromptVersionAdded', data: { promptId: c.promptId, versionId: c.versionId, version: c.version } },
      ];
    }
    case 'UpdatePrompt': {
      const prompt = activePrompt(state, c.promptId);
      checkDescription('description', c.description);
      checkMetadata(c.metadata);
      const data: PromptUpdated['data'] = {
        promptId: prompt.promptId,
        ...(c.description !== undefined && c.description !== prompt.description ? { description: c.description } : {}),
        ...(c.metadata !== undefined && !sameJson(c.metadata, prompt.metadata) ? { metadata: c.metadata } : {}),
      };
      return Object.keys(data).length > 1 ? [{ type: 'PromptUpdated', data }] : [];
    }
    case 'SetPromptTag': {
      const prompt = activePrompt(state, c.promptId);
      checkName('invalid_tag_name', 'name', c.name);
      checkDescription('description', c.description);
      if (!prompt.versions.includes(c.versionId))
        throw new DomainError(
          'prompt_version_not_found',
          `Prompt version ${c.versionId} is not a version of prompt "${prompt.name}": a tag names a version of its own prompt`,
          'not_found',
        );
      const current = prompt.tags.get(c.name);
      if (current?.versionId === c.versionId && current.description === c.description) return [];
      return [
        { type: 'PromptTagSet', data: { promptId: prompt.promptId, name: c.name, versionId: c.versionId, description: c.description } },
      ];
    }
    case 'RemovePromptTag': {
      const prompt = activePrompt(state, c.promptId);
      if (!prompt.tags.has(c.name))
        throw new DomainError('prompt_tag_not_found', `Prompt "${prompt.name}" has no tag "${c.name}"`, 'not_found');
      return [{ type: 'PromptTagRemoved', data: { promptId: prompt.promptId, name: c.name } }];
    }
    case 'SetPromptLabels': {
      const prompt = activePrompt(state, c.promptId);
      const labelIds = [...new Set(c.labelIds)].sort((a, b) => a - b);
      if (
        sameJson(
          labelIds,
          [...prompt.labelIds].sort((a, b) => a - b),
        )
      )
        return [];
      return [{ type: 'PromptLabelsSet', data: { promptId: prompt.promptId, labelIds } }];
    }
    case 'DeletePrompt': {
      const prompt = activePrompt(state, c.promptId);
      return [{ type: 'PromptDeleted', data: { promptId: prompt.promptId, name: prompt.name } }];
    }
  }
};

const onActive = (state: PromptState, promptId: string, change: (p: ActivePrompt) => ActivePrompt): PromptState =>
  state.status === 'active' && state.promptId === promptId ? change(state) : state;

const evolve = (state: PromptState, event: PromptEvent): PromptState => {
  switch (event.type) {
    case 'PromptCreated': {
      const { promptId, name, description, metadata } = event.data;
      return { status: 'active', promptId, name, description, metadata, versions: [], tags: new Map(), labelIds: [] };
    }
    case 'PromptVersionAdded':
      return onActive(state, event.data.promptId, (p) => ({ ...p, versions: [...p.versions, event.data.versionId] }));
    case 'PromptTagSet':
      return onActive(state, event.data.promptId, (p) => ({
        ...p,
        tags: new Map([...p.tags, [event.data.name, { versionId: event.data.versionId, description: event.data.description }]]),
      }));
    case 'PromptTagRemoved':
      return onActive(state, event.data.promptId, (p) => ({
        ...p,
        tags: new Map([...p.tags].filter(([name]) => name !== event.data.name)),
      }));
    case 'PromptUpdated':
      return onActive(state, event.data.promptId, (p) => ({
        ...p,
        ...(event.data.description !== undefined ? { description: event.data.description } : {}),
        ...(event.data.metadata !== undefined ? { metadata: event.data.metadata } : {}),
      }));
    case 'PromptLabelsSet':
      return onActive(state, event.data.promptId, (p) => ({ ...p, labelIds: event.data.labelIds }));
    case 'PromptDeleted':
      return { status: 'deleted', promptId: event.data.promptId, name: event.data.name };
    default:
      return state;
  }
};

/**
 * One prompt's lifecycle: created with its first version, more versions, tags that each point at
 * one of its versions, labels, description and metadata, deletion with everything under it.
 */
export const promptDecider: Decider<PromptState, PromptCommand, PromptEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve,
  decide,
};
