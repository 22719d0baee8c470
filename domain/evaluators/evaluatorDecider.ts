import { isDeepStrictEqual } from 'node:util';
import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import { FilterError, parseFilter } from '../filters/filterSyntax.ts';
import type { EvaluatorCommand } from './commands.ts';
import { definitionProblems, type DefinitionProblem, type EvaluatorDefinition } from './evaluatorDefinition.ts';
import { EVALUATION_TARGETS, type EvaluatorEvent, type ProjectEvaluatorSettings } from './events.ts';
import { mappingProblems } from './inputMapping.ts';

export type EvaluatorEntry = { readonly definition: EvaluatorDefinition; readonly version: number };
export type AttachmentEntry = { readonly evaluatorId: number; readonly projectId: string; readonly settings: ProjectEvaluatorSettings };

export type DatasetAttachmentEntry = { readonly evaluatorId: number; readonly datasetId: string };

export type EvaluatorsState = {
  readonly lastEvaluatorId: number;
  readonly lastAttachmentId: number;
  readonly lastDatasetEvaluatorId: number;
  readonly evaluators: ReadonlyMap<number, EvaluatorEntry>;
  readonly attachments: ReadonlyMap<number, AttachmentEntry>;
  readonly datasetAttachments: ReadonlyMap<number, DatasetAttachmentEntry>;
};

const changed = <K, V>(map: ReadonlyMap<K, V>, key: K, value: V | null): Map<K, V> => {
  const next = new Map(map);
  if (value === null) next.delete(key);
  else next.set(key, value);
  return next;
};

const evolve = (state: EvaluatorsState, event: EvaluatorEvent): EvaluatorsState => {
  switch (event.type) {
    case 'EvaluatorCreated':
    case 'EvaluatorUpdated':
      return {
        ...state,
        lastEvaluatorId: Math.max(state.lastEvaluatorId, event.data.evaluatorId),
        evaluators: changed(state.evaluators, event.data.evaluatorId, { definition: event.data.definition, version: event.data.version }),
      };
    case 'EvaluatorDeleted':
      return { ...state, evaluators: changed(state.evaluators, event.data.evaluatorId, null) };
    case 'ProjectEvaluatorAttached':
      return {
        ...state,
        lastAttachmentId: Math.max(state.lastAttachmentId, event.data.attachmentId),
        attachments: changed(state.attachments, event.data.attachmentId, {
          evaluatorId: event.data.evaluatorId,
          projectId: event.data.projectId,
          settings: event.data.settings,
        }),
      };
    case 'ProjectEvaluatorChanged': {
      const entry = state.attachments.get(event.data.attachmentId);
      return entry
        ? { ...state, attachments: changed(state.attachments, event.data.attachmentId, { ...entry, settings: event.data.settings }) }
        : state;
    }
    case 'ProjectEvaluatorDetached':
      return { ...state, attachments: changed(state.attachments, event.data.attachmentId, null) };
    case 'DatasetEvaluatorAttached':
      return {
        ...state,
        lastDatasetEvaluatorId: Math.max(state.lastDatasetEvaluatorId, event.data.datasetEvaluatorId),
        datasetAttachments: changed(state.datasetAttachments, event.data.datasetEvaluatorId, {
          evaluatorId: event.data.evaluatorId,
          datasetId: event.data.datasetId,
        }),
      };
    case 'DatasetEvaluatorDetached':
      return { ...state, datasetAttachments: changed(state.datasetAttachments, event.data.datasetEvaluatorId, null) };
    default:
      return state;
  }
};

/** A rule of one field broken: the message names the (wire) field, the API answers it as a 422. */
const invalid = (code: string, problems: readonly DefinitionProblem[]) =>
  new DomainError(
    code,
    problems
      .slice(0, 5)
      .map((p) => `${p.field}: ${p.message}`)
      .join('; '),
  );

const evaluatorNotFound = (id: number) => new DomainError('evaluator_not_found', `Evaluator ${id} not found`, 'not_found');
const attachmentNotFound = (id: number) => new DomainError('project_evaluator_not_found', `Project evaluator ${id} not found`, 'not_found');

const checkDefinition = (state: EvaluatorsState, definition: EvaluatorDefinition, self: number | null) => {
  const problems = definitionProblems(definition);
  if (problems.length > 0) throw invalid('invalid_evaluator', problems);
  for (const [id, entry] of state.evaluators)
    if (id !== self && entry.definition.name === definition.name)
      throw new DomainError('evaluator_exists', `An evaluator named "${definition.name}" already exists`, 'conflict');
};

/** The settings' rules (the filter's syntax here; its field names are checked where it compiles, at the edge). */
export const settingsProblems = (s: ProjectEvaluatorSettings): DefinitionProblem[] => {
  const problems: DefinitionProblem[] = [];
  if (!EVALUATION_TARGETS.includes(s.target))
    problems.push({ field: 'target', message: `must be one of ${EVALUATION_TARGETS.join(', ')}` });
  if (!(Number.isFinite(s.samplingRate) && s.samplingRate >= 0 && s.samplingRate <= 1))
    problems.push({ field: 'sampling_rate', message: 'must be a number from 0 to 1' });
  if (!(Number.isInteger(s.delaySeconds) && s.delaySeconds >= 0 && s.delaySeconds <= 86_400))
    problems.push({ field: 'delay_seconds', message: 'must be a whole number of seconds from 0 to 86400' });
  if (s.annotationName !== null && (s.annotationName.trim() === '' || s.annotationName.length > 200))
    problems.push({ field: 'annotation_name', message: 'must be 1-200 characters' });
  if (s.filter.trim() !== '')
    try {
      parseFilter(s.filter);
    } catch (error) {
      if (!(error instanceof FilterError)) throw error;
      problems.push({ field: 'filter', message: error.message });
    }
  const subject = s.target === 'SPAN' ? 'span' : s.target === 'TRACE' ? 'trace' : 'session';
  problems.push(...mappingProblems(s.inputMapping, subject));
  return problems;
};

const checkSettings = (settings: ProjectEvaluatorSettings) => {
  const problems = settingsProblems(settings);
  if (problems.length > 0) throw invalid('invalid_project_evaluator', problems);
};

const decide = (c: EvaluatorCommand, state: EvaluatorsState): EvaluatorEvent[] => {
  switch (c.type) {
    case 'CreateEvaluator':
      checkDefinition(state, c.definition, null);
      return [{ type: 'EvaluatorCreated', data: { evaluatorId: state.lastEvaluatorId + 1, version: 1, definition: c.definition } }];
    case 'UpdateEvaluator': {
      const entry = state.evaluators.get(c.evaluatorId);
      if (entry === undefined) throw evaluatorNotFound(c.evaluatorId);
      checkDefinition(state, c.definition, c.evaluatorId);
      if (isDeepStrictEqual(entry.definition, c.definition)) return [];
      return [{ type: 'EvaluatorUpdated', data: { evaluatorId: c.evaluatorId, version: entry.version + 1, definition: c.definition } }];
    }
    case 'DeleteEvaluator': {
      if (!state.evaluators.has(c.evaluatorId)) throw evaluatorNotFound(c.evaluatorId);
      const detached: EvaluatorEvent[] = [
        ...[...state.attachments]
          .filter(([, a]) => a.evaluatorId === c.evaluatorId)
          .map(([attachmentId]): EvaluatorEvent => ({ type: 'ProjectEvaluatorDetached', data: { attachmentId } })),
        ...[...state.datasetAttachments]
          .filter(([, a]) => a.evaluatorId === c.evaluatorId)
          .map(([datasetEvaluatorId]): EvaluatorEvent => ({ type: 'DatasetEvaluatorDetached', data: { datasetEvaluatorId } })),
      ];
      return [...detached, { type: 'EvaluatorDeleted', data: { evaluatorId: c.evaluatorId } }];
    }
    case 'AttachProjectEvaluator':
      if (!state.evaluators.has(c.evaluatorId))
        throw new DomainError('evaluator_not_found', `evaluator_id: no evaluator has the id ${c.evaluatorId}`);
      checkSettings(c.settings);
      return [
        {
          type: 'ProjectEvaluatorAttached',
          data: { attachmentId: state.lastAttachmentId + 1, evaluatorId: c.evaluatorId, projectId: c.projectId, settings: c.settings },
        },
      ];
    case 'ChangeProjectEvaluator': {
      const entry = state.attachments.get(c.attachmentId);
      if (entry === undefined) throw attachmentNotFound(c.attachmentId);
      checkSettings(c.settings);
      return isDeepStrictEqual(entry.settings, c.settings)
        ? []
        : [{ type: 'ProjectEvaluatorChanged', data: { attachmentId: c.attachmentId, settings: c.settings } }];
    }
    case 'DetachProjectEvaluator':
      if (!state.attachments.has(c.attachmentId)) throw attachmentNotFound(c.attachmentId);
      return [{ type: 'ProjectEvaluatorDetached', data: { attachmentId: c.attachmentId } }];
    case 'AttachDatasetEvaluator': {
      if (!state.evaluators.has(c.evaluatorId))
        throw new DomainError('evaluator_not_found', `evaluator_id: no evaluator has the id ${c.evaluatorId}`);
      const problems = mappingProblems(c.inputMapping, 'run');
      if (c.annotationName !== null && (c.annotationName.trim() === '' || c.annotationName.length > 200))
        problems.push({ field: 'annotation_name', message: 'must be 1-200 characters' });
      if (problems.length > 0) throw invalid('invalid_dataset_evaluator', problems);
      const { type: _type, ...data } = c;
      return [{ type: 'DatasetEvaluatorAttached', data: { datasetEvaluatorId: state.lastDatasetEvaluatorId + 1, ...data } }];
    }
    case 'DetachDatasetEvaluator':
      if (!state.datasetAttachments.has(c.datasetEvaluatorId))
        throw new DomainError('dataset_evaluator_not_found', `Dataset evaluator ${c.datasetEvaluatorId} not found`, 'not_found');
      return [{ type: 'DatasetEvaluatorDetached', data: { datasetEvaluatorId: c.datasetEvaluatorId } }];
    case 'BackfillProjectEvaluator': {
      if (!state.attachments.has(c.attachmentId)) throw attachmentNotFound(c.attachmentId);
      const start = Date.parse(c.startTime);
      const end = Date.parse(c.endTime);
      if (!(Number.isFinite(start) && Number.isFinite(end) && start < end))
        throw invalid('invalid_time_range', [{ field: 'start_time', message: 'start_time and end_time must be times, start_time first' }]);
      return [
        {
          type: 'EvaluatorBackfillRequested',
          data: { attachmentId: c.attachmentId, startTime: new Date(start).toISOString(), endTime: new Date(end).toISOString() },
        },
      ];
    }
  }
};

/** All evaluators and their uses on projects in one aggregate: unique names, ids in order, versions. */
export const evaluatorDecider: Decider<EvaluatorsState, EvaluatorCommand, EvaluatorEvent> = {
  initialState: () => ({
    lastEvaluatorId: 0,
    lastAttachmentId: 0,
    lastDatasetEvaluatorId: 0,
    evaluators: new Map(),
    attachments: new Map(),
    datasetAttachments: new Map(),
  }),
  evolve,
  decide,
};
