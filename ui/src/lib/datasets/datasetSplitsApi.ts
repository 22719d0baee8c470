import { http } from '../api/http.ts';

/** Splits (global names; membership per example) and labels (a global vocabulary; a set per dataset). */

export type DatasetSplit = {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly color: string;
  /** Examples of this dataset in the split. */
  readonly example_count: number;
};

export type DatasetLabel = { readonly id: string; readonly name: string; readonly color: string; readonly description: string | null };

const path = (id: string, rest: string) => `/v1/datasets/${encodeURIComponent(id)}${rest}`;

export const fetchSplits = async (datasetId: string, signal?: AbortSignal): Promise<DatasetSplit[]> =>
  (await http<{ data: DatasetSplit[] }>(path(datasetId, '/splits'), { signal })).data;

export const createSplit = async (datasetId: string, name: string, exampleIds: readonly string[] = []): Promise<DatasetSplit> =>
  (await http<{ data: DatasetSplit }>(path(datasetId, '/splits'), { method: 'POST', json: { name, example_ids: exampleIds } })).data;

export const renameSplit = async (datasetId: string, splitId: string, name: string): Promise<DatasetSplit> =>
  (await http<{ data: DatasetSplit }>(path(datasetId, `/splits/${encodeURIComponent(splitId)}`), { method: 'PATCH', json: { name } })).data;

/** Adds and removes examples (their `node_id`s) of a split. */
export const assignToSplit = async (
  datasetId: string,
  splitId: string,
  change: { readonly add?: readonly string[]; readonly remove?: readonly string[] },
): Promise<DatasetSplit> =>
  (
    await http<{ data: DatasetSplit }>(path(datasetId, `/splits/${encodeURIComponent(splitId)}`), {
      method: 'PATCH',
      json: { add_example_ids: change.add ?? [], remove_example_ids: change.remove ?? [] },
    })
  ).data;

/** Deletes the split everywhere: splits are shared by every dataset. */
export const deleteSplit = async (datasetId: string, splitId: string): Promise<void> => {
  await http(path(datasetId, `/splits/${encodeURIComponent(splitId)}`), { method: 'DELETE' });
};

export const fetchAllLabels = async (signal?: AbortSignal): Promise<DatasetLabel[]> =>
  (await http<{ data: DatasetLabel[] }>('/v1/dataset_labels', { query: { limit: 100 }, signal })).data;

export const fetchDatasetLabels = async (datasetId: string, signal?: AbortSignal): Promise<DatasetLabel[]> =>
  (await http<{ data: DatasetLabel[] }>(path(datasetId, '/labels'), { signal })).data;

export const createLabel = async (name: string, color: string): Promise<DatasetLabel> =>
  (await http<{ data: DatasetLabel }>('/v1/dataset_labels', { method: 'POST', json: { name, color } })).data;

/** Replaces the dataset's labels with these. */
export const setDatasetLabels = async (datasetId: string, labelIds: readonly string[]): Promise<DatasetLabel[]> =>
  (await http<{ data: DatasetLabel[] }>(path(datasetId, '/labels'), { method: 'PUT', json: { dataset_label_ids: labelIds } })).data;
