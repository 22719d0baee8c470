import type { JsonObject } from '../base/jsonValue.ts';
import type { DatasetLabelData, DatasetSplitData, ExampleData, ExamplePatch } from './events.ts';

/** Creating the dataset (its name claimed first on `dataset-names`) comes with its first version. */
export type NewDataset = { readonly name: string; readonly description: string | null; readonly metadata: JsonObject };

/**
 * One new version with its changes. `create` is given when the dataset may not exist yet (an
 * upload with `action=create|append`): it is created then, and ignored when it exists.
 * `datasetId` names the incarnation the caller looked at.
 */
export type AddDatasetVersion = {
  readonly type: 'AddDatasetVersion';
  readonly datasetId: string;
  readonly create: NewDataset | null;
  readonly versionId: string;
  readonly description: string | null;
  readonly metadata: JsonObject;
  readonly uploadId: string | null;
  readonly added: readonly ExampleData[];
  readonly patched: readonly ExamplePatch[];
  readonly deleted: readonly string[];
};
export type RenameDataset = { readonly type: 'RenameDataset'; readonly datasetId: string; readonly name: string };
export type UpdateDataset = {
  readonly type: 'UpdateDataset';
  readonly datasetId: string;
  readonly description?: string | null;
  readonly metadata?: JsonObject;
};
export type SetDatasetLabels = { readonly type: 'SetDatasetLabels'; readonly datasetId: string; readonly labelIds: readonly number[] };
export type DeleteDataset = { readonly type: 'DeleteDataset'; readonly datasetId: string };

export type SetExperimentTag = {
  readonly type: 'SetExperimentTag';
  readonly datasetId: string;
  readonly name: string;
  readonly experimentId: string;
  readonly description: string | null;
};
/** Removes the tag only when it names this experiment (idempotent otherwise). */
export type RemoveExperimentTag = {
  readonly type: 'RemoveExperimentTag';
  readonly datasetId: string;
  readonly name: string;
  readonly experimentId: string;
};

export type DatasetCommand =
  | AddDatasetVersion
  | RenameDataset
  | UpdateDataset
  | SetDatasetLabels
  | DeleteDataset
  | SetExperimentTag
  | RemoveExperimentTag;

export type ClaimDatasetName = { readonly type: 'ClaimDatasetName'; readonly name: string; readonly datasetId: string };
export type ReleaseDatasetName = { readonly type: 'ReleaseDatasetName'; readonly name: string; readonly datasetId: string };
export type DatasetNameCommand = ClaimDatasetName | ReleaseDatasetName;

export type CreateDatasetLabel = { readonly type: 'CreateDatasetLabel'; readonly label: DatasetLabelData };
export type UpdateDatasetLabel = { readonly type: 'UpdateDatasetLabel'; readonly labelId: number; readonly label: DatasetLabelData };
export type DeleteDatasetLabel = { readonly type: 'DeleteDatasetLabel'; readonly labelId: number };
export type DatasetLabelCommand = CreateDatasetLabel | UpdateDatasetLabel | DeleteDatasetLabel;

/** `ifAbsent`: an upload naming a split that exists uses it (no error). */
export type CreateDatasetSplits = {
  readonly type: 'CreateDatasetSplits';
  readonly splits: readonly DatasetSplitData[];
  readonly ifAbsent: boolean;
};
export type UpdateDatasetSplit = { readonly type: 'UpdateDatasetSplit'; readonly splitId: number; readonly split: DatasetSplitData };
export type DeleteDatasetSplit = { readonly type: 'DeleteDatasetSplit'; readonly splitId: number };
export type ChangeSplitExamples = {
  readonly type: 'ChangeSplitExamples';
  readonly splitId: number;
  readonly added: readonly string[];
  readonly removed: readonly string[];
};
export type DatasetSplitCommand = CreateDatasetSplits | UpdateDatasetSplit | DeleteDatasetSplit | ChangeSplitExamples;
