import type { Projection } from '../projection.ts';
import { applyExperimentEvent } from './applyExperimentEvent.ts';
import { experimentsMigrations } from './experimentsMigrations.ts';

export const EXPERIMENT_EVENT_TYPES = [
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
  tables: ['experiment_ids', 'experiments', 'experiment_examples', 'experiment_runs', 'experiment_evaluations'],
  migrations: experimentsMigrations,
  apply: async (tx, events) => {
    for (const event of events) if (EVENTS.has(event.type)) await applyExperimentEvent(tx, event);
  },
};
