import type { Projection } from '../projection.ts';
import { applyExperimentEvent } from './applyExperimentEvent.ts';
import { experimentsMigrations } from './experimentsMigrations.ts';

const EXPERIMENT_EVENT_TYPES = [
  'ExperimentCreated',
  'ExperimentUpdated',
  'ExperimentDeleted',
  'ExperimentRunRecorded',
  'ExperimentEvaluationRecorded',
  'DatasetDeleted',
] as const;
const EVENTS = new Set<string>(EXPERIMENT_EVENT_TYPES);

/** Experiments, the examples each runs over, runs and their evaluations. */
export const experimentsProjection: Projection = {
  name: 'experiments',
  /** The event types `apply` reads (a read-your-writes wait for another type passes while this read model is stopped). */
  eventTypes: [...EXPERIMENT_EVENT_TYPES],
  tables: ['experiment_ids', 'experiments', 'experiment_examples', 'experiment_runs', 'experiment_evaluations'],
  migrations: experimentsMigrations,
  apply: async (tx, events) => {
    for (const event of events) if (EVENTS.has(event.type)) await applyExperimentEvent(tx, event);
  },
};
