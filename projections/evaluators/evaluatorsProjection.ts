import { isEventOf } from '../../domain/loupeEvent.ts';
import type { Projection } from '../projection.ts';
import { applyContentRemoved, applyEvaluationFailed, applyEvaluatorEvent } from './applyEvaluatorEvent.ts';
import { evaluatorsMigrations } from './evaluatorsMigrations.ts';

const EVALUATOR_EVENT_TYPES = [
  'EvaluatorCreated',
  'EvaluatorUpdated',
  'EvaluatorDeleted',
  'ProjectEvaluatorAttached',
  'ProjectEvaluatorChanged',
  'ProjectEvaluatorDetached',
  'EvaluatorBackfillRequested',
  'DatasetEvaluatorAttached',
  'DatasetEvaluatorDetached',
] as const;

/** Evaluators, their uses on projects, and the evaluations that failed. */
export const evaluatorsProjection: Projection = {
  name: 'evaluators',
  /** The event types `apply` reads (a read-your-writes wait for another type passes while this read model is stopped). */
  eventTypes: [...EVALUATOR_EVENT_TYPES, 'EvaluationFailed', 'ContentRemoved'],
  tables: ['evaluators', 'project_evaluators', 'dataset_evaluators', 'evaluation_failures'],
  migrations: evaluatorsMigrations,
  apply: async (tx, events) => {
    for (const event of events) {
      if (isEventOf(event, EVALUATOR_EVENT_TYPES)) await applyEvaluatorEvent(tx, event);
      else if (isEventOf(event, ['EvaluationFailed'])) await applyEvaluationFailed(tx, event);
      else if (isEventOf(event, ['ContentRemoved'])) await applyContentRemoved(tx, event);
    }
  },
};
