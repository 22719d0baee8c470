import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const evaluatorRow = z.object({
  id: z.bigint().transform(Number),
  name: z.string(),
  kind: z.string(),
  description: z.string().nullable(),
  definition: z.record(z.string(), z.unknown()),
  version: z.number(),
  created_at: z.number().transform((ms) => new Date(ms)),
  updated_at: z.number().transform((ms) => new Date(ms)),
});
export type EvaluatorRow = z.infer<typeof evaluatorRow>;

const attachmentRow = z.object({
  id: z.bigint().transform(Number),
  evaluator_id: z.bigint().transform(Number),
  project_id: z.string(),
  target: z.enum(['SPAN', 'TRACE', 'SESSION']),
  sampling_rate: z.number(),
  filter: z.string(),
  input_mapping: z.object({
    pathMapping: z.record(z.string(), z.string()),
    literalMapping: z.record(z.string(), z.unknown()),
  }),
  annotation_name: z.string().nullable(),
  delay_seconds: z.number(),
  enabled: z.boolean(),
  start_after_rowid: z.bigint().transform(Number),
  created_at: z.number().transform((ms) => new Date(ms)),
  updated_at: z.number().transform((ms) => new Date(ms)),
});
export type ProjectEvaluatorRow = z.infer<typeof attachmentRow>;

const datasetEvaluatorRow = z.object({
  id: z.bigint().transform(Number),
  evaluator_id: z.bigint().transform(Number),
  dataset_id: z.string(),
  input_mapping: z.object({
    pathMapping: z.record(z.string(), z.string()),
    literalMapping: z.record(z.string(), z.unknown()),
  }),
  annotation_name: z.string().nullable(),
  created_at: z.number().transform((ms) => new Date(ms)),
});
export type DatasetEvaluatorRow = z.infer<typeof datasetEvaluatorRow>;

const datasetEvaluatorColumns = sql.fragment`d.id, d.evaluator_id, d.dataset_id::text AS dataset_id, d.input_mapping, d.annotation_name, d.created_at`;

/** A dataset's evaluators, oldest first. */
export const listDatasetEvaluators = (db: CommonQueryMethods, datasetId: string) =>
  db.any(
    sql.type(
      datasetEvaluatorRow,
    )`SELECT ${datasetEvaluatorColumns} FROM dataset_evaluators d WHERE d.dataset_id = ${datasetId} ORDER BY d.id`,
  );

export const findDatasetEvaluator = (db: CommonQueryMethods, datasetEvaluatorId: number) =>
  db.maybeOne(
    sql.type(datasetEvaluatorRow)`SELECT ${datasetEvaluatorColumns} FROM dataset_evaluators d WHERE d.id = ${datasetEvaluatorId}`,
  );

const failureRow = z.object({
  attachment_id: z.bigint().transform(Number),
  version: z.number(),
  target: z.string(),
  target_id: z.string(),
  error: z.string(),
  attempts: z.number(),
  failed_at: z.number().transform((ms) => new Date(ms)),
});
export type EvaluationFailureRow = z.infer<typeof failureRow>;

const evaluatorColumns = sql.fragment`e.id, e.name, e.kind, e.description, e.definition, e.version, e.created_at, e.updated_at`;
const attachmentColumns = sql.fragment`a.id, a.evaluator_id, a.project_id::text AS project_id, a.target, a.sampling_rate, a.filter,
  a.input_mapping, a.annotation_name, a.delay_seconds, a.enabled, a.start_after_rowid, a.created_at, a.updated_at`;

/** Newest first from `cursor` (a row id, inclusive); `limit + 1` rows. */
export const listEvaluators = (db: CommonQueryMethods, q: { readonly cursor: number | null; readonly limit: number }) =>
  db.any(sql.type(evaluatorRow)`
    SELECT ${evaluatorColumns} FROM evaluators e WHERE ${q.cursor === null ? sql.fragment`true` : sql.fragment`e.id <= ${q.cursor}`}
    ORDER BY e.id DESC LIMIT ${q.limit + 1}`);

export const findEvaluator = (db: CommonQueryMethods, by: { readonly id: number } | { readonly name: string }) =>
  db.maybeOne(sql.type(evaluatorRow)`
    SELECT ${evaluatorColumns} FROM evaluators e WHERE ${'id' in by ? sql.fragment`e.id = ${by.id}` : sql.fragment`e.name = ${by.name}`}`);

/** A project's evaluators (all of them, oldest first: there are few). */
export const listProjectEvaluators = (db: CommonQueryMethods, projectId: string) =>
  db.any(sql.type(attachmentRow)`SELECT ${attachmentColumns} FROM project_evaluators a WHERE a.project_id = ${projectId} ORDER BY a.id`);

export const findProjectEvaluator = (db: CommonQueryMethods, attachmentId: number) =>
  db.maybeOne(sql.type(attachmentRow)`SELECT ${attachmentColumns} FROM project_evaluators a WHERE a.id = ${attachmentId}`);

/** Every enabled project evaluator with a rate above zero: what the evaluation reactor scans for. */
export const activeProjectEvaluators = (db: CommonQueryMethods) =>
  db.any(sql.type(attachmentRow)`
    SELECT ${attachmentColumns} FROM project_evaluators a WHERE a.enabled AND a.sampling_rate > 0 ORDER BY a.id`);

/** An evaluator's most recent failures, newest first. */
export const recentEvaluationFailures = (db: CommonQueryMethods, evaluatorId: number, limit: number) =>
  db.any(sql.type(failureRow)`
    SELECT attachment_id, version, target, target_id, error, attempts, failed_at FROM evaluation_failures
    WHERE evaluator_id = ${evaluatorId} ORDER BY failed_at DESC, target_id LIMIT ${limit}`);

export const countEvaluationFailures = async (db: CommonQueryMethods, evaluatorId: number): Promise<number> =>
  Number(await db.oneFirst(sql.unsafe`SELECT count(*) FROM evaluation_failures WHERE evaluator_id = ${evaluatorId}`));
