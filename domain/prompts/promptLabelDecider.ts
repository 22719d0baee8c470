import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import { isHexColor } from '../projects/projectColors.ts';
import { MESSAGE_MAX_BYTES, storableText } from '../base/storableText.ts';
import type { PromptLabelCommand } from './commands.ts';
import type { PromptLabelData, PromptLabelEvent } from './events.ts';
import { identifierProblem } from './promptName.ts';

export type PromptLabelsState = {
  /** The last label id handed out: ids are never reused, so a GlobalID names one label forever. */
  readonly lastId: number;
  readonly labels: ReadonlyMap<number, PromptLabelData>;
};

const notFound = (labelId: number) => new DomainError('prompt_label_not_found', `Prompt label ${labelId} not found`, 'not_found');

const checkLabel = (state: PromptLabelsState, label: PromptLabelData, self: number | null): void => {
  const problem = identifierProblem(label.name);
  if (problem !== null) throw new DomainError('invalid_prompt_label', `name: ${problem}`);
  if (label.color !== null && !isHexColor(label.color))
    throw new DomainError('invalid_prompt_label', 'color: must be a colour like #1c76fc');
  if (label.description !== null) {
    if (storableText(label.description) !== label.description)
      throw new DomainError('invalid_prompt_label', 'description: must not contain NUL characters or unpaired UTF-16 surrogates');
    if (Buffer.byteLength(label.description, 'utf8') > MESSAGE_MAX_BYTES)
      throw new DomainError('invalid_prompt_label', `description: must be at most ${MESSAGE_MAX_BYTES} bytes of UTF-8`);
  }
  for (const [id, other] of state.labels)
    if (id !== self && other.name === label.name)
      throw new DomainError('prompt_label_exists', `A prompt label named "${label.name}" already exists`, 'conflict');
};

const evolve = (state: PromptLabelsState, event: PromptLabelEvent): PromptLabelsState => {
  const labels = new Map(state.labels);
  switch (event.type) {
    case 'PromptLabelCreated':
      labels.set(event.data.labelId, event.data.label);
      return { lastId: Math.max(state.lastId, event.data.labelId), labels };
    case 'PromptLabelUpdated':
      if (labels.has(event.data.labelId)) labels.set(event.data.labelId, event.data.label);
      return { ...state, labels };
    case 'PromptLabelDeleted':
      labels.delete(event.data.labelId);
      return { ...state, labels };
    default:
      return state;
  }
};

const decide = (c: PromptLabelCommand, state: PromptLabelsState): PromptLabelEvent[] => {
  switch (c.type) {
    case 'CreatePromptLabel':
      checkLabel(state, c.label, null);
      return [{ type: 'PromptLabelCreated', data: { labelId: state.lastId + 1, label: c.label } }];
    case 'UpdatePromptLabel':
      if (!state.labels.has(c.labelId)) throw notFound(c.labelId);
      checkLabel(state, c.label, c.labelId);
      return [{ type: 'PromptLabelUpdated', data: { labelId: c.labelId, label: c.label } }];
    case 'DeletePromptLabel':
      if (!state.labels.has(c.labelId)) throw notFound(c.labelId);
      return [{ type: 'PromptLabelDeleted', data: { labelId: c.labelId } }];
  }
};

/** Every prompt label in one aggregate: unique names, ids handed out in order. */
export const promptLabelDecider: Decider<PromptLabelsState, PromptLabelCommand, PromptLabelEvent> = {
  initialState: () => ({ lastId: 0, labels: new Map() }),
  evolve,
  decide,
};
