import { randomUUID } from 'node:crypto';

/** One dataset's lifecycle: versions, renames, labels, deletion. Keyed by its uuid (names change). */
export const datasetStream = (datasetId: string): string => `dataset-${datasetId}`;

/** One upload's staged examples: a fresh stream, so a refused upload touches no dataset. */
export const datasetUploadStream = (uploadId: string): string => `dataset-upload-${uploadId}`;

export const newUploadId = (): string => randomUUID();

/** Which dataset holds which name: unique names across datasets (there are few writes). */
export const DATASET_NAMES_STREAM = 'dataset-names';

/** Dataset labels and splits: global vocabularies with unique names, few writes. */
export const DATASET_LABELS_STREAM = 'dataset-labels';
export const DATASET_SPLITS_STREAM = 'dataset-splits';
