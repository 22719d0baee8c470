import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { EvaluationTarget } from '../../domain/evaluators/events.ts';
import type { JsonObject } from '../../domain/tracing/jsonValue.ts';
import { filterConditions } from '../filters/filterConditions.ts';

/**
 * What the evaluation reactor and worker read of the tracing read model: which targets of a
 * project are new (by row id, handed out in log order and the same after a rebuild), which match
 * a filter, and what one target looks like to an evaluator.
 */
const TABLES: Record<
  EvaluationTarget,
  { table: FragmentSqlToken; alias: 's' | 't'; idColumn: FragmentSqlToken; subject: 'span' | 'trace' | 'session' }
> = {
  SPAN: { table: sql.fragment`spans s`, alias: 's', idColumn: sql.fragment`s.span_id`, subject: 'span' },
  TRACE: { table: sql.fragment`traces t`, alias: 't', idColumn: sql.fragment`t.trace_id`, subject: 'trace' },
  SESSION: { table: sql.fragment`sessions s`, alias: 's', idColumn: sql.fragment`s.session_id`, subject: 'session' },
};

const projectRowid = (projectId: string) => sql.fragment`(SELECT id FROM projects WHERE project_id = ${projectId})`;

/** The last row id of the next window of at most `size` rows of the project after `after`; null when there are none. */
export const nextWindowEnd = async (
  db: CommonQueryMethods,
  q: { readonly target: EvaluationTarget; readonly projectId: string; readonly after: number; readonly size: number },
): Promise<number | null> => {
  const t = TABLES[q.target];
  const a = sql.identifier([t.alias]);
  const end = await db.maybeOneFirst(sql.type(z.object({ last: z.bigint().nullable() }))`
    SELECT max(w.id) AS last FROM (
      SELECT ${a}.id FROM ${t.table} WHERE ${a}.project_id = ${projectRowid(q.projectId)} AND ${a}.id > ${q.after}
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
