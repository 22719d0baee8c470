import {
  findDataset,
  findDatasetSplit,
  findDatasetVersion,
  type DatasetRow,
  type DatasetVersionRow,
} from '../../../projections/datasets/datasetQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { anyGlobalId, rowidOf } from '../../http/globalId.ts';
import { HttpError, shown } from '../../http/httpError.ts';

/**
 * A dataset by GlobalID only (the reference resolves no name on these routes): not a GlobalID is
 * a 422 naming the parameter, another type or an unknown dataset a 404.
 */
export const datasetById = async (deps: AppDeps, raw: string, parameter = 'id'): Promise<DatasetRow> => {
  const gid = anyGlobalId(raw);
  if (gid === null) throw new HttpError(422, 'invalid_dataset_id', `path.${parameter}: ${shown(raw)} is not a Dataset id`);
  const dataset = gid.type === 'Dataset' ? await findDataset(deps.pool, { id: gid.id }) : null;
  if (dataset === null) throw new HttpError(404, 'dataset_not_found', `Dataset ${shown(raw)} not found`);
  return dataset;
};

/** `dataset_identifier`: a Dataset GlobalID or a dataset name. */
export const datasetByIdentifier = async (deps: AppDeps, raw: string): Promise<DatasetRow> => {
  const id = rowidOf('Dataset', raw);
  const dataset = await findDataset(deps.pool, id !== null ? { id } : { name: raw });
  if (dataset === null) throw new HttpError(404, 'dataset_not_found', `Dataset ${shown(raw)} not found`);
  return dataset;
};

/** `version_id` of this dataset (404 when unknown or of another dataset), or its latest version (404 when it has none). */
export const versionOf = async (deps: AppDeps, dataset: DatasetRow, raw: string | undefined): Promise<DatasetVersionRow> => {
  if (raw === undefined || raw === '') {
    const latest = await findDatasetVersion(deps.pool, { latestOf: dataset.dataset_id });
    if (latest === null) throw new HttpError(404, 'dataset_has_no_versions', 'Dataset has no versions.');
    return latest;
  }
  const gid = anyGlobalId(raw);
  if (gid === null) throw new HttpError(422, 'invalid_version_id', `query.version_id: ${shown(raw)} is not a DatasetVersion id`);
  const version = gid.type === 'DatasetVersion' ? await findDatasetVersion(deps.pool, { id: gid.id }) : null;
  if (version === null || version.dataset_id !== dataset.dataset_id)
    throw new HttpError(404, 'dataset_version_not_found', `Dataset version ${shown(raw)} not found in dataset ${shown(dataset.name)}`);
  return version;
};

/** Splits named by GlobalID or name (the `split` query, an experiment's `splits`): their row ids and names; an unknown one is a 404. None given: `ids` null (every example). */
export const splitsOf = async (deps: AppDeps, datasetId: string, raw: readonly string[] | undefined) => {
  if (raw === undefined || raw.length === 0) return { ids: null, names: [] as string[] };
  const splits = [];
  for (const s of raw) {
    const gid = anyGlobalId(s);
    const split = await findDatasetSplit(deps.pool, datasetId, gid?.type === 'DatasetSplit' ? { id: gid.id } : { name: s });
    if (split === null) throw new HttpError(404, 'dataset_split_not_found', `Dataset split ${shown(s)} not found`);
    splits.push(split);
  }
  return { ids: splits.map((s) => s.id), names: splits.map((s) => s.name) };
};
