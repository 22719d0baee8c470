import type { DomainEvent } from '../decider.ts';
import type { JsonObject } from '../base/jsonValue.ts';

/**
 * One example as recorded. `exampleId` is a uuid chosen by the writer; the integer ids of the
 * wire (`DatasetExample:5`) are the read model's. `splits` are split names (global, see the
 * `dataset-splits` stream), `spanId` the hex id of the span it was taken from.
 */
export type ExampleData = {
  readonly exampleId: string;
  readonly externalId: string | null;
  readonly input: JsonObject;
  readonly output: JsonObject;
  readonly metadata: JsonObject;
  readonly splits: readonly string[];
  readonly spanId: string | null;
};

/** What a version changes in one example: the new content (input, output, metadata). */
export type ExamplePatch = {
  readonly exampleId: string;
  readonly input: JsonObject;
  readonly output: JsonObject;
  readonly metadata: JsonObject;
};

/** Events of one dataset's stream (`dataset-<datasetId>`). */
export type DatasetCreated = DomainEvent<
  'DatasetCreated',
  { readonly datasetId: string; readonly name: string; readonly description: string | null; readonly metadata: JsonObject }
>;

/**
 * A new version. A version is immutable: every change of examples comes with one. Its changes
 * follow it in the same append: `DatasetExamplesAdded` / `Patched` / `Deleted`, and, for an
 * upload, the examples staged on the upload's own stream (`uploadId`; see datasetStream.ts), so a
 * 200 MB file never sits in one event nor in memory, and an upload refused half way leaves no
 * version behind. Examples of an upload identical (input, output, metadata) to one the dataset
 * already has are not added again.
 */
export type DatasetVersionCreated = DomainEvent<
  'DatasetVersionCreated',
  {
    readonly datasetId: string;
    readonly versionId: string;
    readonly description: string | null;
    readonly metadata: JsonObject;
    readonly uploadId: string | null;
  }
>;

export type DatasetExamplesAdded = DomainEvent<
  'DatasetExamplesAdded',
  { readonly datasetId: string; readonly versionId: string; readonly examples: readonly ExampleData[] }
>;

export type DatasetExamplesPatched = DomainEvent<
  'DatasetExamplesPatched',
  { readonly datasetId: string; readonly versionId: string; readonly examples: readonly ExamplePatch[] }
>;

export type DatasetExamplesDeleted = DomainEvent<
  'DatasetExamplesDeleted',
  { readonly datasetId: string; readonly versionId: string; readonly exampleIds: readonly string[] }
>;

export type DatasetRenamed = DomainEvent<'DatasetRenamed', { readonly datasetId: string; readonly name: string }>;

/** Only the fields present change; metadata is replaced whole. */
export type DatasetUpdated = DomainEvent<
  'DatasetUpdated',
  { readonly datasetId: string; readonly description?: string | null; readonly metadata?: JsonObject }
>;

/** The whole set of labels (ids of the `dataset-labels` stream) the dataset carries now. */
export type DatasetLabelsSet = DomainEvent<'DatasetLabelsSet', { readonly datasetId: string; readonly labelIds: readonly number[] }>;

/** The read model removes its versions, examples, label links and experiments with it. */
export type DatasetDeleted = DomainEvent<'DatasetDeleted', { readonly datasetId: string; readonly name: string }>;

/**
 * A tag names one experiment of the dataset (`baseline`); setting it on another experiment moves
 * it there. Kept on the dataset's stream: a tag is unique per dataset.
 */
export type ExperimentTagSet = DomainEvent<
  'ExperimentTagSet',
  { readonly datasetId: string; readonly name: string; readonly experimentId: string; readonly description: string | null }
>;
export type ExperimentTagRemoved = DomainEvent<'ExperimentTagRemoved', { readonly datasetId: string; readonly name: string }>;

export type DatasetEvent =
  | ExperimentTagSet
  | ExperimentTagRemoved
  | DatasetCreated
  | DatasetVersionCreated
  | DatasetExamplesAdded
  | DatasetExamplesPatched
  | DatasetExamplesDeleted
  | DatasetRenamed
  | DatasetUpdated
  | DatasetLabelsSet
  | DatasetDeleted;

/**
 * A chunk of an upload's examples, on the upload's own stream (`dataset-upload-<uploadId>`).
 * Invisible until a `DatasetVersionCreated` names the upload; a refused upload leaves only these.
 */
export type DatasetExamplesStaged = DomainEvent<
  'DatasetExamplesStaged',
  { readonly uploadId: string; readonly seq: number; readonly examples: readonly ExampleData[] }
>;

/** Dataset names are unique: the `dataset-names` stream holds which dataset holds a name. */
export type DatasetNameClaimed = DomainEvent<'DatasetNameClaimed', { readonly name: string; readonly datasetId: string }>;
export type DatasetNameReleased = DomainEvent<'DatasetNameReleased', { readonly name: string; readonly datasetId: string }>;
export type DatasetNameEvent = DatasetNameClaimed | DatasetNameReleased;

/** Labels: the global vocabulary, one stream (`dataset-labels`). */
export type DatasetLabelData = { readonly name: string; readonly color: string; readonly description: string | null };
export type DatasetLabelCreated = DomainEvent<'DatasetLabelCreated', { readonly labelId: number; readonly label: DatasetLabelData }>;
export type DatasetLabelUpdated = DomainEvent<'DatasetLabelUpdated', { readonly labelId: number; readonly label: DatasetLabelData }>;
export type DatasetLabelDeleted = DomainEvent<'DatasetLabelDeleted', { readonly labelId: number }>;

/** Splits: global names, one stream (`dataset-splits`); membership by example uuid. */
export type DatasetSplitData = {
  readonly name: string;
  readonly description: string | null;
  readonly color: string;
  readonly metadata: JsonObject;
};
export type DatasetSplitCreated = DomainEvent<'DatasetSplitCreated', { readonly splitId: number; readonly split: DatasetSplitData }>;
export type DatasetSplitUpdated = DomainEvent<'DatasetSplitUpdated', { readonly splitId: number; readonly split: DatasetSplitData }>;
export type DatasetSplitDeleted = DomainEvent<'DatasetSplitDeleted', { readonly splitId: number }>;
/** Removal wins over addition of the same example. */
export type DatasetSplitExamplesChanged = DomainEvent<
  'DatasetSplitExamplesChanged',
  { readonly splitId: number; readonly added: readonly string[]; readonly removed: readonly string[] }
>;

export type DatasetLabelEvent = DatasetLabelCreated | DatasetLabelUpdated | DatasetLabelDeleted;
export type DatasetSplitEvent = DatasetSplitCreated | DatasetSplitUpdated | DatasetSplitDeleted | DatasetSplitExamplesChanged;

export type DatasetVocabularyEvent =
  | DatasetLabelCreated
  | DatasetLabelUpdated
  | DatasetLabelDeleted
  | DatasetSplitCreated
  | DatasetSplitUpdated
  | DatasetSplitDeleted
  | DatasetSplitExamplesChanged;

export type AnyDatasetEvent = DatasetEvent | DatasetExamplesStaged | DatasetNameEvent | DatasetVocabularyEvent;
