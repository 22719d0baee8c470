import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { EvaluationTarget } from '../../domain/evaluators/events.ts';
import type { JsonObject } from '../../domain/base/jsonValue.ts';
import { filterConditions } from '../filters/filterConditions.ts';
import { settledRowid } from '../tracing/tracingPartitions.ts';

/**
 * What the evaluation reactor and worker read of the tracing read model: which targets of a
 * project are new (by row id, handed out in log order and the same after a rebuild), which match
 * a filter, and what one target looks like to an evaluator.
 */
const TABLES: Record<
  EvaluationTarget,
  {
    table: FragmentSqlToken;
    alias: 's' | 't';
    idColumn: FragmentSqlToken;
    subject: 'span' | 'trace' | 'session';
    kind: 'span' | 'trace' | 'session';
  }
> = {
  SPAN: { table: sql.fragment`spans s`, alias: 's', idColumn: sql.fragment`s.span_id`, subject: 'span', kind: 'span' },
  TRACE: { table: sql.fragment`traces t`, alias: 't', idColumn: sql.fragment`t.trace_id`, subject: 'trace', kind: 'trace' },
  SESSION: { table: sql.fragment`sessions s`, alias: 's', idColumn: sql.fragment`s.session_id`, subject: 'session', kind: 'session' },
};

const projectRowid = (projectId: string) => sql.fragment`(SELECT id FROM projects WHERE project_id = ${projectId})`;

/**
 * The last row id of the next window of at most `size` rows of the project after `after`; null when
 * there are none. Only settled rows (tracingPartitions.ts): a tracing partition may still commit
 * rows below the highest id stored, and a window passed is never looked at again.
 */
export const nextWindowEnd = async (
  db: CommonQueryMethods,
  q: { readonly target: EvaluationTarget; readonly projectId: string; readonly after: number; readonly size: number },
): Promise<number | null> => {
  const t = TABLES[q.target];
  const a = sql.identifier([t.alias]);
  const end = await db.maybeOneFirst(sql.type(z.object({ last: z.bigint().nullable() }))`
    SELECT max(w.id) AS last FROM (
      SELECT ${a}.id FROM ${t.table} WHERE ${a}.project_id = ${projectRowid(q.projectId)} AND ${a}.id > ${q.after}
        AND ${a}.id <= ${settledRowid(t.kind)}
      ORDER BY ${a}.id LIMIT ${q.size}) w`);
  return end === null ? null : Number(end);
};

/** The ids of the targets in (after, upTo] (or started in [from, to)) that match the filter, in row order. */
export const matchingTargets = async (
  db: CommonQueryMethods,
  q: {
    readonly target: EvaluationTarget;
    readonly projectId: string;
    readonly filter: string;
    readonly rows?: { readonly after: number; readonly upTo: number };
    readonly startedFrom?: Date;
    readonly startedBefore?: Date;
    readonly limit?: number;
  },
): Promise<{ readonly rowid: number; readonly targetId: string }[]> => {
  const t = TABLES[q.target];
  const a = sql.identifier([t.alias]);
  const where: FragmentSqlToken[] = [
    sql.fragment`${a}.project_id = ${projectRowid(q.projectId)}`,
    ...filterConditions(t.subject, { filter: q.filter }),
  ];
  if (q.rows) where.push(sql.fragment`${a}.id > ${q.rows.after} AND ${a}.id <= ${q.rows.upTo}`);
  if (q.startedFrom) where.push(sql.fragment`${a}.start_time >= ${q.startedFrom.toISOString()}`);
  if (q.startedBefore) where.push(sql.fragment`${a}.start_time < ${q.startedBefore.toISOString()}`);
  const rows = await db.any(sql.type(z.object({ id: z.bigint(), target_id: z.string() }))`
    SELECT ${a}.id, ${t.idColumn} AS target_id FROM ${t.table} WHERE ${sql.join(where, sql.fragment` AND `)}
    ORDER BY ${a}.id ${q.limit === undefined ? sql.fragment`` : sql.fragment`LIMIT ${q.limit}`}`);
  return rows.map((r) => ({ rowid: Number(r.id), targetId: r.target_id }));
};

/**
 * A trace's or session's activity, as text that changes whenever it grows: its span (trace) count
 * and end. Null for spans (judged at once) and for what is gone. The judging decision compares it
 * with the last look's to tell whether the target has been quiet.
 */
export const activityColumn = (target: EvaluationTarget, alias: string): FragmentSqlToken | null => {
  const a = sql.identifier([alias]);
  if (target === 'TRACE') return sql.fragment`${a}.span_count::text || ':' || (extract(epoch FROM ${a}.end_time) * 1000000)::bigint::text`;
  if (target === 'SESSION')
    return sql.fragment`${a}.trace_count::text || ':' || (extract(epoch FROM ${a}.end_time) * 1000000)::bigint::text`;
  return null;
};

export const targetActivity = async (db: CommonQueryMethods, target: EvaluationTarget, targetId: string): Promise<string | null> => {
  if (target === 'SPAN') return null;
  const column = activityColumn(target, 't')!;
  const from =
    target === 'TRACE' ? sql.fragment`traces t WHERE t.trace_id = ${targetId}` : sql.fragment`sessions t WHERE t.session_id = ${targetId}`;
  return db.maybeOneFirst(sql.type(z.object({ activity: z.string() }))`SELECT ${column} AS activity FROM ${from}`);
};

const spanSubject = z.object({
  span_id: z.string(),
  trace_id: z.string(),
  name: z.string(),
  span_kind: z.string(),
  status_code: z.string(),
  status_message: z.string(),
  start_time: z.string(),
  end_time: z.string(),
  attributes: z.record(z.string(), z.unknown()),
});

const iso = (column: string) =>
  sql.fragment`to_char(${sql.identifier(column.split('.'))} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * One target as an evaluator sees it (paths of an input mapping start here): a span's fields and
 * attributes; a trace's root span; a session's first input and last output. Null once it is gone.
 */
export const evaluationSubject = async (db: CommonQueryMethods, target: EvaluationTarget, targetId: string): Promise<JsonObject | null> => {
  const spanColumns = sql.fragment`s.span_id, s.trace_id, s.name, s.span_kind, s.status_code, s.status_message,
    ${iso('s.start_time')} AS start_time, ${iso('s.end_time')} AS end_time, s.attributes`;
  if (target === 'SPAN')
    return (await db.maybeOne(
      sql.type(spanSubject)`SELECT ${spanColumns} FROM spans s WHERE s.span_id = ${targetId}`,
    )) as JsonObject | null;
  if (target === 'TRACE')
    return (await db.maybeOne(sql.type(spanSubject)`
      SELECT ${spanColumns} FROM traces t JOIN spans s ON s.span_id = t.root_span_id WHERE t.trace_id = ${targetId}`)) as JsonObject | null;
  const session = await db.maybeOne(sql.type(
    z.object({ session_id: z.string(), input: z.string().nullable(), output: z.string().nullable() }),
  )`
    SELECT session_id, first_input AS input, last_output AS output FROM sessions WHERE session_id = ${targetId}`);
  return session as JsonObject | null;
};

/** For runs (by id) recorded without an error: the dataset evaluators of their experiment's dataset. */
export const runEvaluations = (db: CommonQueryMethods, runIds: readonly string[]) =>
  db.any(sql.type(z.object({ run_id: z.string(), dataset_evaluator_id: z.bigint().transform(Number) }))`
    SELECT r.run_id::text AS run_id, d.id AS dataset_evaluator_id
    FROM experiment_runs r JOIN experiments x ON x.experiment_id = r.experiment_id JOIN dataset_evaluators d ON d.dataset_id = x.dataset_id
    WHERE r.run_id = ANY(${sql.array([...runIds], 'uuid')}) AND r.error IS NULL
    ORDER BY r.id, d.id`);

const runSubject = z.object({
  experiment_id: z.string(),
  input: z.unknown(),
  output: z.unknown(),
  expected: z.unknown(),
  metadata: z.unknown(),
  error: z.string().nullable(),
});

/**
 * An experiment run as an evaluator sees it: the example's `input`, `expected` output (also as
 * `reference`) and `metadata` at the experiment's dataset version, and the run's `output`.
 */
export const runEvaluationSubject = async (
  db: CommonQueryMethods,
  runId: string,
): Promise<{ experimentId: string; subject: JsonObject } | null> => {
  const row = await db.maybeOne(sql.type(runSubject)`
    SELECT r.experiment_id::text AS experiment_id, rv.input, r.output, rv.output AS expected, rv.metadata, r.error
    FROM experiment_runs r JOIN experiments x ON x.experiment_id = r.experiment_id
    LEFT JOIN LATERAL (
      SELECT dr.input, dr.output, dr.metadata FROM dataset_example_revisions dr
      WHERE dr.example_id = r.example_id AND dr.version_row <= (SELECT v.id FROM dataset_versions v WHERE v.version_id = x.version_id)
      ORDER BY dr.version_row DESC LIMIT 1
    ) rv ON true
    WHERE r.run_id = ${runId}`);
  if (row === null) return null;
  const subject = {
    input: row.input ?? null,
    output: row.output ?? null,
    expected: row.expected ?? null,
    reference: row.expected ?? null,
    metadata: row.metadata ?? {},
    error: row.error,
  };
  return { experimentId: row.experiment_id, subject: subject as unknown as JsonObject };
};
