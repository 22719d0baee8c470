import type {
  DatasetExampleRow,
  DatasetLabelRow,
  DatasetRow,
  DatasetSplitRow,
  DatasetVersionRow,
} from '../../projections/datasets/datasetQueries.ts';
import { toGlobalId } from '../http/globalId.ts';
import { isoMicros } from './dateTimeScalar.ts';
import {
  Dataset,
  DatasetExample,
  DatasetExampleRevision,
  DatasetLabel,
  DatasetSplit,
  DatasetVersion,
  type RevisionKind,
} from './types/datasetTypes.ts';

/** The same GlobalIDs REST answers with. */
export const datasetOf = (row: DatasetRow): Dataset =>
  Object.assign(new Dataset(), {
    id: toGlobalId('Dataset', String(row.id)),
    rowid: row.id,
    datasetUuid: row.dataset_id,
    name: row.name,
    description: row.description,
    metadata: row.metadata ?? {},
    createdAt: isoMicros(row.created_us),
    updatedAt: isoMicros(row.updated_us),
    latestExampleCount: row.example_count,
  });

export const versionOf = (row: DatasetVersionRow): DatasetVersion =>
  Object.assign(new DatasetVersion(), {
    id: toGlobalId('DatasetVersion', String(row.id)),
    rowid: row.id,
    datasetUuid: row.dataset_id,
    description: row.description,
    metadata: row.metadata ?? {},
    createdAt: isoMicros(row.created_us),
  });

export const revisionOf = (row: { kind: RevisionKind; input: unknown; output: unknown; metadata: unknown; created_us: bigint }) =>
  Object.assign(new DatasetExampleRevision(), {
    input: row.input ?? {},
    output: row.output ?? {},
    metadata: row.metadata ?? {},
    revisionKind: row.kind,
    createdAt: isoMicros(row.created_us),
  });

export const exampleOf = (row: DatasetExampleRow, datasetUuid: string): DatasetExample =>
  Object.assign(new DatasetExample(), {
    id: toGlobalId('DatasetExample', String(row.id)),
    rowid: row.id,
    exampleUuid: row.example_id,
    datasetUuid,
    externalId: row.external_id,
    createdAt: isoMicros(row.created_us),
    readAt: revisionOf({ ...row, created_us: row.updated_us }),
  });

export const splitOf = (row: DatasetSplitRow): DatasetSplit =>
  Object.assign(new DatasetSplit(), {
    id: toGlobalId('DatasetSplit', String(row.id)),
    name: row.name,
    description: row.description,
    metadata: row.metadata ?? {},
    color: row.color,
    createdAt: isoMicros(row.created_us),
    updatedAt: isoMicros(row.updated_us),
  });

export const labelOf = (row: DatasetLabelRow): DatasetLabel =>
  Object.assign(new DatasetLabel(), {
    id: toGlobalId('DatasetLabel', String(row.id)),
    name: row.name,
    description: row.description,
    color: row.color,
  });
