import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const micros = (column: string) => sql.fragment`(extract(epoch FROM ${sql.identifier(column.split('.'))}) * 1000000)::bigint`;
const json = z.unknown();
const rowid = z.bigint().transform(Number);

const experimentRow = z.object({
  id: rowid,
  experiment_id: z.string(),
  dataset_id: z.string(),
  dataset_rowid: rowid,
  version_rowid: rowid,
  name: z.string(),
  description: z.string().nullable(),
  metadata: json,
  repetitions: z.number(),
  project_name: z.string(),
  example_count: z.number(),
  successful_run_count: z.number(),
  failed_run_count: z.number(),
  created_us: z.bigint(),
  updated_us: z.bigint(),
  cost_prompt: z.number().nullable(),
  cost_completion: z.number().nullable(),
  cost_total: z.number().nullable(),
});
export type ExperimentRow = z.infer<typeof experimentRow>;

const runRow = z.object({
  id: rowid,
  run_id: z.string(),
  experiment_rowid: rowid,
  experiment_id: z.string(),
  example_rowid: rowid,
  example_id: z.string(),
  repetition: z.number(),
  output: json,
  start_us: z.bigint(),
  end_us: z.bigint(),
  trace_id: z.string().nullable(),
  error: z.string().nullable(),
});
export type ExperimentRunRow = z.infer<typeof runRow>;

const evaluationRow = z.object({
  id: rowid,
  run_id: z.string(),
  name: z.string(),
  annotator_kind: z.string(),
  label: z.string().nullable(),
  score: z.number().nullable(),
  explanation: z.string().nullable(),
  error: z.string().nullable(),
  metadata: json,
  trace_id: z.string().nullable(),
  start_us: z.bigint(),
  end_us: z.bigint(),
});
export type ExperimentEvaluationRow = z.infer<typeof evaluationRow>;

const exampleColumns = (alias: string) => sql.fragment`
  ${sql.identifier([alias, 'id'])} AS ex_rowid, ${sql.identifier([alias, 'external_id'])} AS ex_external_id,
  rv.input AS ex_input, rv.output AS ex_output, rv.metadata AS ex_metadata, ${micros('rv.created_at')} AS ex_updated_us`;
const exampleFields = {
  ex_rowid: rowid,
  ex_external_id: z.string().nullable(),
  ex_input: json,
  ex_output: json,
  ex_metadata: json,
  ex_updated_us: z.bigint(),
};
/** The example's content at the experiment's version (its latest revision up to that version). */
const revisionAt = (exampleIdColumn: ReturnType<typeof sql.fragment>) => sql.fragment`
  LEFT JOIN LATERAL (
    SELECT dr.input, dr.output, dr.metadata, dr.created_at FROM dataset_example_revisions dr
    WHERE dr.example_id = ${exampleIdColumn} AND dr.version_row <= (SELECT v.id FROM dataset_versions v WHERE v.version_id = x.version_id)
    ORDER BY dr.version_row DESC LIMIT 1
  ) rv ON true`;

/**
 * The experiment's cost: the sum over its runs' traces (each its LLM spans' cost, tracing's
 * aggregate), as the run rows show it; null while none of them is priced. Evaluators' traces are
 * not in it, as in Phoenix's experiment cost summary.
 */
const runCost = (column: 'cost_prompt' | 'cost_completion' | 'cost_total') => sql.fragment`
  (SELECT sum(${sql.identifier(['t', column])}) FROM experiment_runs r JOIN traces t ON t.trace_id = r.trace_id
   WHERE r.experiment_id = x.experiment_id)`;

const experimentColumns = sql.fragment`x.id, x.experiment_id::text AS experiment_id, x.dataset_id::text AS dataset_id,
  (SELECT d.id FROM datasets d WHERE d.dataset_id = x.dataset_id) AS dataset_rowid,
  (SELECT v.id FROM dataset_versions v WHERE v.version_id = x.version_id) AS version_rowid,
  x.name, x.description, x.metadata, x.repetitions, x.project_name, x.example_count,
  (SELECT count(*)::int FROM experiment_runs r WHERE r.experiment_id = x.experiment_id AND r.error IS NULL) AS successful_run_count,
  (SELECT count(*)::int FROM experiment_runs r WHERE r.experiment_id = x.experiment_id AND r.error IS NOT NULL) AS failed_run_count,
  ${micros('x.created_at')} AS created_us, ${micros('x.updated_at')} AS updated_us,
  ${runCost('cost_prompt')} AS cost_prompt, ${runCost('cost_completion')} AS cost_completion, ${runCost('cost_total')} AS cost_total`;

export const findExperiment = (
  db: CommonQueryMethods,
  by: { readonly id: number } | { readonly experimentId: string },
): Promise<ExperimentRow | null> =>
  db.maybeOne(sql.type(experimentRow)`
    SELECT ${experimentColumns} FROM experiments x
    WHERE ${'id' in by ? sql.fragment`x.id = ${by.id}` : sql.fragment`x.experiment_id = ${by.experimentId}`}`);

export const listExperiments = (
  db: CommonQueryMethods,
  q: { readonly datasetId: string; readonly cursor: number | null; readonly limit: number },
): Promise<readonly ExperimentRow[]> =>
  db.any(sql.type(experimentRow)`
    SELECT ${experimentColumns} FROM experiments x
    WHERE x.dataset_id = ${q.datasetId} ${q.cursor !== null ? sql.fragment`AND x.id <= ${q.cursor}` : sql.fragment``}
    ORDER BY x.id DESC LIMIT ${q.limit + 1}`);

const runColumns = sql.fragment`r.id, r.run_id::text AS run_id, x.id AS experiment_rowid, r.experiment_id::text AS experiment_id,
  e.id AS example_rowid, r.example_id::text AS example_id, r.repetition, r.output,
  ${micros('r.start_time')} AS start_us, ${micros('r.end_time')} AS end_us, r.trace_id, r.error`;
const runFrom = sql.fragment`experiment_runs r JOIN experiments x ON x.experiment_id = r.experiment_id JOIN dataset_examples e ON e.example_id = r.example_id`;

/** Newest first from `cursor` (inclusive); `limit + 1` rows, or every run when `limit` is null. */
export const listExperimentRuns = (
  db: CommonQueryMethods,
  q: { readonly experimentId: string; readonly cursor: number | null; readonly limit: number | null },
): Promise<readonly ExperimentRunRow[]> =>
  db.any(sql.type(runRow)`
    SELECT ${runColumns} FROM ${runFrom}
    WHERE r.experiment_id = ${q.experimentId} ${q.cursor !== null ? sql.fragment`AND r.id <= ${q.cursor}` : sql.fragment``}
    ORDER BY r.id DESC ${q.limit !== null ? sql.fragment`LIMIT ${q.limit + 1}` : sql.fragment``}`);

export const findExperimentRun = (
  db: CommonQueryMethods,
  by: { readonly id: number } | { readonly runId: string },
): Promise<ExperimentRunRow | null> =>
  db.maybeOne(sql.type(runRow)`
    SELECT ${runColumns} FROM ${runFrom} WHERE ${'id' in by ? sql.fragment`r.id = ${by.id}` : sql.fragment`r.run_id = ${by.runId}`}`);

/** The uuid of the example with this row id, when it is one of the experiment's examples. */
export const experimentExample = (db: CommonQueryMethods, experimentId: string, exampleRowid: number): Promise<string | null> =>
  db.maybeOneFirst(sql.type(z.object({ example_id: z.string() }))`
    SELECT e.example_id::text AS example_id FROM dataset_examples e
    JOIN experiment_examples xe ON xe.example_id = e.example_id AND xe.experiment_id = ${experimentId}
    WHERE e.id = ${exampleRowid}`);

const incompleteRunRow = z.object({ ...exampleFields, repetitions: z.array(z.number()) });
export type IncompleteRunRow = z.infer<typeof incompleteRunRow>;

/**
 * The experiment's examples (row id ascending, from `cursor` inclusive, `limit + 1` of them) that
 * lack a successful run for some repetition, with those repetitions.
 */
export const incompleteRuns = (
  db: CommonQueryMethods,
  q: { readonly experimentId: string; readonly cursor: number | null; readonly limit: number },
): Promise<readonly IncompleteRunRow[]> =>
  db.any(sql.type(incompleteRunRow)`
    SELECT * FROM (
      SELECT ${exampleColumns('e')},
        ARRAY(SELECT g FROM generate_series(1, x.repetitions) g WHERE NOT EXISTS (
          SELECT 1 FROM experiment_runs r WHERE r.experiment_id = x.experiment_id AND r.example_id = e.example_id
            AND r.repetition = g AND r.error IS NULL) ORDER BY g) AS repetitions
      FROM experiments x JOIN experiment_examples xe ON xe.experiment_id = x.experiment_id
      JOIN dataset_examples e ON e.example_id = xe.example_id
      ${revisionAt(sql.fragment`e.example_id`)}
      WHERE x.experiment_id = ${q.experimentId} ${q.cursor !== null ? sql.fragment`AND e.id >= ${q.cursor}` : sql.fragment``}
    ) t WHERE cardinality(t.repetitions) > 0
    ORDER BY t.ex_rowid LIMIT ${q.limit + 1}`);

const incompleteEvaluationRow = runRow.extend({ ...exampleFields, missing: z.array(z.string()) });
export type IncompleteEvaluationRow = z.infer<typeof incompleteEvaluationRow>;

/**
 * Successful runs (row id ascending, from `cursor` inclusive, `limit + 1`) missing an evaluation
 * of one of `names`, or whose evaluation of it failed, with those names.
 */
export const incompleteEvaluations = (
  db: CommonQueryMethods,
  q: { readonly experimentId: string; readonly names: readonly string[]; readonly cursor: number | null; readonly limit: number },
): Promise<readonly IncompleteEvaluationRow[]> =>
  db.any(sql.type(incompleteEvaluationRow)`
    SELECT * FROM (
      SELECT ${runColumns}, ${exampleColumns('e')},
        ARRAY(SELECT n FROM unnest(${sql.array([...q.names], 'text')}) n WHERE NOT EXISTS (
          SELECT 1 FROM experiment_evaluations v WHERE v.run_id = r.run_id AND v.name = n AND v.error IS NULL) ORDER BY n) AS missing
      FROM ${runFrom}
      ${revisionAt(sql.fragment`r.example_id`)}
      WHERE r.experiment_id = ${q.experimentId} AND r.error IS NULL ${q.cursor !== null ? sql.fragment`AND r.id >= ${q.cursor}` : sql.fragment``}
    ) t WHERE cardinality(t.missing) > 0
    ORDER BY t.id LIMIT ${q.limit + 1}`);

export const findExperimentEvaluation = (db: CommonQueryMethods, runId: string, name: string): Promise<ExperimentEvaluationRow | null> =>
  db.maybeOne(sql.type(evaluationRow)`
    SELECT v.id, v.run_id::text AS run_id, v.name, v.annotator_kind, v.label, v.score, v.explanation, v.error, v.metadata, v.trace_id,
      ${micros('v.start_time')} AS start_us, ${micros('v.end_time')} AS end_us
    FROM experiment_evaluations v WHERE v.run_id = ${runId} AND v.name = ${name}`);

export const evaluationsOfExperiment = (db: CommonQueryMethods, experimentId: string): Promise<readonly ExperimentEvaluationRow[]> =>
  db.any(sql.type(evaluationRow)`
    SELECT v.id, v.run_id::text AS run_id, v.name, v.annotator_kind, v.label, v.score, v.explanation, v.error, v.metadata, v.trace_id,
      ${micros('v.start_time')} AS start_us, ${micros('v.end_time')} AS end_us
    FROM experiment_evaluations v WHERE v.experiment_id = ${experimentId} ORDER BY v.id`);

const tokens = z.bigint().transform(Number).nullable();
const usd = z.number().nullable();
const exportRow = runRow.extend({
  ...exampleFields,
  prompt_tokens: tokens,
  completion_tokens: tokens,
  cost_prompt: usd,
  cost_completion: usd,
  cost_total: usd,
});
export type ExperimentExportRow = z.infer<typeof exportRow>;

/**
 * Every run with its example's content at the experiment's version, by run id, and the tokens of
 * the run's trace (its LLM spans' counts; null while the trace has not arrived) and its cost
 * (null also when none of its LLM spans is priced).
 */
export const experimentExport = (db: CommonQueryMethods, experimentId: string): Promise<readonly ExperimentExportRow[]> =>
  db.any(sql.type(exportRow)`
    SELECT ${runColumns}, ${exampleColumns('e')}, t.token_count_prompt AS prompt_tokens, t.token_count_completion AS completion_tokens,
      t.cost_prompt, t.cost_completion, t.cost_total
    FROM ${runFrom} ${revisionAt(sql.fragment`r.example_id`)} LEFT JOIN traces t ON t.trace_id = r.trace_id
    WHERE r.experiment_id = ${experimentId} ORDER BY r.id`);
