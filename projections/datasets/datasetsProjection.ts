import type { Projection } from '../projection.ts';
import { applyDatasetEvent, applyDatasetVocabularyEvent } from './applyDatasetEvent.ts';
import { datasetsMigrations } from './datasetsMigrations.ts';

const DATASET_EVENT_TYPES = [
  'DatasetCreated',
  'DatasetVersionCreated',
  'DatasetExamplesAdded',
  'DatasetExamplesPatched',
  'DatasetExamplesDeleted',
  'DatasetRenamed',
  'DatasetUpdated',
  'DatasetLabelsSet',
  'DatasetDeleted',
  'DatasetExamplesStaged',
  'ExperimentTagSet',
  'ExperimentTagRemoved',
  'ExperimentDeleted',
] as const;
const DATASET_VOCABULARY_EVENT_TYPES = [
  'DatasetLabelCreated',
  'DatasetLabelUpdated',
  'DatasetLabelDeleted',
  'DatasetSplitCreated',
  'DatasetSplitUpdated',
  'DatasetSplitDeleted',
  'DatasetSplitExamplesChanged',
] as const;

const DATASET_EVENTS = new Set<string>(DATASET_EVENT_TYPES);
const VOCABULARY_EVENTS = new Set<string>(DATASET_VOCABULARY_EVENT_TYPES);

/** Datasets, their versions and examples (as revisions), labels and splits. */
export const datasetsProjection: Projection = {
  name: 'datasets',
  /** The event types `apply` reads (a read-your-writes wait for another type passes while this read model is stopped). */
  eventTypes: [...DATASET_EVENT_TYPES, ...DATASET_VOCABULARY_EVENT_TYPES],
  tables: [
    'dataset_ids',
    'datasets',
    'dataset_versions',
    'dataset_examples',
    'dataset_example_revisions',
    'dataset_staged_examples',
    'dataset_labels',
    'dataset_label_links',
    'dataset_splits',
    'dataset_split_examples',
    'dataset_experiment_tags',
  ],
  migrations: datasetsMigrations,
  apply: async (tx, events) => {
    for (const event of events) {
      if (DATASET_EVENTS.has(event.type)) await applyDatasetEvent(tx, event);
      else if (VOCABULARY_EVENTS.has(event.type)) await applyDatasetVocabularyEvent(tx, event);
    }
  },
};
