import { z } from 'zod';
import type {
  DatasetExampleRow,
  DatasetLabelRow,
  DatasetRow,
  DatasetSplitRow,
  DatasetVersionRow,
  DatasetVersionWithChangesRow,
} from '../../../projections/datasets/datasetQueries.ts';
import { toGlobalId } from '../../http/globalId.ts';
import { isoFromMicros } from '../../http/pythonIsoTime.ts';
import { anyJson, isoTime } from '../../http/responseSchemas.ts';

/** The shapes of this file's `*Json` functions, as the routes declare them. */
export const datasetSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  metadata: anyJson,
  created_at: isoTime,
  updated_at: isoTime,
  example_count: z.number(),
});
export const versionSchema = z.object({
  version_id: z.string(),
  description: z.string().nullable(),
  metadata: anyJson,
  created_at: isoTime,
});
export const versionWithChangesSchema = versionSchema.extend({
  num_created_examples: z.number(),
  num_updated_examples: z.number(),
  num_deleted_examples: z.number(),
});
export const exampleSchema = z.object({
  id: z.string(),
  node_id: z.string(),
  input: anyJson,
  output: anyJson,
  metadata: anyJson,
  updated_at: isoTime,
  source: z.object({ span_id: z.string(), span_node_id: z.string().nullable() }).nullable(),
  splits: z.array(z.string()),
});
/** `GET /v1/datasets/{id}/examples`: a version's examples. */
export const examplesSchema = z.object({
  dataset_id: z.string(),
  version_id: z.string(),
  filtered_splits: z.array(z.string()),
  examples: z.array(exampleSchema),
});
export const labelSchema = z.object({ id: z.string(), name: z.string(), description: z.string().nullable(), color: z.string() });
export const splitSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  color: z.string().nullable(),
  metadata: anyJson,
  example_count: z.number(),
  created_at: isoTime,
  updated_at: isoTime,
});

export const datasetGid = (rowid: number): string => toGlobalId('Dataset', String(rowid));
export const versionGid = (rowid: number): string => toGlobalId('DatasetVersion', String(rowid));
export const exampleGid = (rowid: number): string => toGlobalId('DatasetExample', String(rowid));

export const datasetJson = (row: DatasetRow) => ({
  id: datasetGid(row.id),
  name: row.name,
  description: row.description,
  metadata: row.metadata,
  created_at: isoFromMicros(row.created_us),
  updated_at: isoFromMicros(row.updated_us),
  example_count: row.example_count,
});

export const versionJson = (row: DatasetVersionRow) => ({
  version_id: versionGid(row.id),
  description: row.description,
  metadata: row.metadata,
  created_at: isoFromMicros(row.created_us),
});

/** Loupe adds what the version changed (named as the upload's answer names it); clients of the reference ignore it. */
export const versionWithChangesJson = (row: DatasetVersionWithChangesRow) => ({
  ...versionJson(row),
  num_created_examples: row.num_created,
  num_updated_examples: row.num_patched,
  num_deleted_examples: row.num_deleted,
});

/**
 * `id` is the external id when the example has one, `node_id` always the GlobalID (runs use it).
 * `splits` (the names of the example's splits) is Loupe's addition, as in the JSONL export.
 */
export const exampleJson = (row: DatasetExampleRow) => ({
  id: row.external_id ?? exampleGid(row.id),
  node_id: exampleGid(row.id),
  input: row.input,
  output: row.output,
  metadata: row.metadata,
  updated_at: isoFromMicros(row.updated_us),
  source:
    row.span_id === null
      ? null
      : { span_id: row.span_id, span_node_id: row.span_rowid === null ? null : toGlobalId('Span', String(row.span_rowid)) },
  splits: row.splits,
});

export const labelJson = (row: DatasetLabelRow) => ({
  id: toGlobalId('DatasetLabel', String(row.id)),
  name: row.name,
  description: row.description,
  color: row.color,
});

export const splitJson = (row: DatasetSplitRow) => ({
  id: toGlobalId('DatasetSplit', String(row.id)),
  name: row.name,
  description: row.description,
  color: row.color,
  metadata: row.metadata,
  example_count: row.example_count,
  created_at: isoFromMicros(row.created_us),
  updated_at: isoFromMicros(row.updated_us),
});

const jsonObject = z.record(z.string(), z.unknown());
const perExample = <T extends z.ZodType>(item: T) => z.array(item).nullish();

/** The JSON body of `POST /v1/datasets/upload`: lists of the same length, one entry per example. */
export const uploadBody = z.object({
  action: z.string().optional(),
  name: z.string(),
  description: z.string().nullish(),
  inputs: z.array(jsonObject),
  outputs: perExample(jsonObject),
  metadata: perExample(jsonObject),
  splits: perExample(z.union([z.string(), z.array(z.string().nullable()), z.null()])),
  span_ids: perExample(z.string().nullable()),
  example_ids: perExample(z.string().nullable()),
});
export type UploadBody = z.infer<typeof uploadBody>;

const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour like #1c76fc');

export const labelBody = z.object({ name: z.string().min(1), color: hexColor, description: z.string().nullish() });
export const labelPatchBody = z.object({ name: z.string().min(1).nullish(), color: hexColor.nullish(), description: z.string().nullish() });
export const datasetLabelIdsBody = z.object({ dataset_label_ids: z.array(z.string()) });

export const splitBody = z.object({
  name: z.string().min(1),
  description: z.string().nullish(),
  color: hexColor.nullish(),
  metadata: jsonObject.nullish(),
  example_ids: z.array(z.string()).nullish(),
});
export const splitPatchBody = z.object({
  name: z.string().min(1).optional(),
  description: z.string().nullish(),
  color: hexColor.optional(),
  metadata: jsonObject.optional(),
  add_example_ids: z.array(z.string()).nullish(),
  remove_example_ids: z.array(z.string()).nullish(),
});
