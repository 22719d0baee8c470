import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { costColumns } from './costColumns.ts';
import { micros } from './micros.ts';
import { withinTraces } from './withinTraces.ts';
import { sessionAggregateRow, sessionColumns } from './sessionQueries.ts';
import { spanColumns, spanRow } from './spanQueries.ts';

/**
 * Batch lookups for the GraphQL layer: each takes many keys and answers in ONE statement, so a
 * page of N rows with nested fields costs a constant number of queries (dataloader batches the
 * keys of one tick). Order of the result is not significant; callers index by key.
 */

const ids = (values: readonly number[]) => sql.array([...values], 'int8');
const texts = (values: readonly string[]) => sql.array([...values], 'text');

const traceDetailRow = z.object({
  id: z.bigint().transform(Number),
  trace_id: z.string(),
  project_id: z.bigint().transform(Number),
  session_id: z.bigint().transform(Number).nullable(),
  start_us: z.bigint(),
  end_us: z.bigint(),
  root_span_id: z.string().nullable(),
  span_count: z.number(),
  error_count: z.number(),
  token_count_prompt: z.bigint().transform(Number),
  token_count_completion: z.bigint().transform(Number),
  ...costColumns,
});

export type TraceDetailRow = z.infer<typeof traceDetailRow>;

const traceColumns = sql.fragment`
  t.id, t.trace_id, t.project_id, t.session_id, ${micros('t.start_time')} AS start_us, ${micros('t.end_time')} AS end_us,
  t.root_span_id, t.span_count, t.error_count, t.token_count_prompt, t.token_count_completion,
  t.cost_prompt, t.cost_completion, t.cost_total`;

export const tracesByIds = (db: CommonQueryMethods, traceRowids: readonly number[]): Promise<readonly TraceDetailRow[]> =>
  traceRowids.length === 0
    ? Promise.resolve([])
    : db.any(sql.type(traceDetailRow)`SELECT ${traceColumns} FROM traces t WHERE t.id = ANY(${ids(traceRowids)})`);

export const tracesByOtelIds = (db: CommonQueryMethods, traceIds: readonly string[]): Promise<readonly TraceDetailRow[]> =>
  traceIds.length === 0
    ? Promise.resolve([])
    : db.any(sql.type(traceDetailRow)`SELECT ${traceColumns} FROM traces t WHERE t.trace_id = ANY(${texts(traceIds)})`);

/**
 * One page of a session's traces by start time, from the trace `fromRowid` (inclusive, keyset on
 * (start, id)); `limit + 1` rows so the caller sees whether a page follows.
 */
export const sessionTracesPage = (
  db: CommonQueryMethods,
  sessionRowid: number,
  page: { readonly fromRowid: number | null; readonly limit: number },
): Promise<readonly TraceDetailRow[]> =>
  db.any(sql.type(traceDetailRow)`
    SELECT ${traceColumns} FROM traces t
    WHERE t.session_id = ${sessionRowid}
      ${page.fromRowid === null ? sql.fragment`` : sql.fragment`AND (t.start_time, t.id) >= (SELECT c.start_time, c.id FROM traces c WHERE c.id = ${page.fromRowid})`}
    ORDER BY t.start_time, t.id LIMIT ${page.limit + 1}`);

const fullSpanRow = spanRow.extend({ trace_rowid: z.bigint().transform(Number), project_id: z.bigint().transform(Number) });

export type FullSpanRow = z.infer<typeof fullSpanRow>;

const fullSpanColumns = sql.fragment`s.trace_rowid, s.project_id, ${spanColumns}`;

export const spansByIds = (db: CommonQueryMethods, spanRowids: readonly number[]): Promise<readonly FullSpanRow[]> =>
  spanRowids.length === 0
    ? Promise.resolve([])
    : db.any(sql.type(fullSpanRow)`SELECT ${fullSpanColumns} FROM spans s WHERE s.id = ANY(${ids(spanRowids)})`);

export const spansByOtelIds = (db: CommonQueryMethods, spanIds: readonly string[]): Promise<readonly FullSpanRow[]> =>
  spanIds.length === 0
    ? Promise.resolve([])
    : db.any(sql.type(fullSpanRow)`SELECT ${fullSpanColumns} FROM spans s WHERE s.span_id = ANY(${texts(spanIds)})`);

const lightSpanRow = z.object({
  id: z.bigint().transform(Number),
  span_id: z.string(),
  parent_id: z.string().nullable(),
  name: z.string(),
  span_kind: z.string(),
  status_code: z.string(),
  status_message: z.string(),
  start_us: z.bigint(),
  end_us: z.bigint(),
  llm_token_count_prompt: z.bigint().transform(Number).nullable(),
  llm_token_count_completion: z.bigint().transform(Number).nullable(),
  ...costColumns,
});

/**
 * A span without its attributes and events (the bulk of a span's bytes): what a span tree needs.
 * The trace's own columns come from the trace the caller already has, not from every row.
 */
export type LightSpanRow = z.infer<typeof lightSpanRow> & {
  readonly trace_rowid: number;
  readonly trace_id: string;
  readonly project_id: number;
};

/**
 * One page of a trace's spans in insertion order (row id ascending), from `fromRowid` inclusive;
 * `limit + 1` rows so the caller sees whether a page follows. Light rows (a 10,000-span tree is
 * drawn from these); attributes are fetched, batched, only for the spans that show them.
 */
export const traceSpansPage = async (
  db: CommonQueryMethods,
  trace: { readonly id: number; readonly traceId: string; readonly projectRowid: number },
  page: { readonly fromRowid: number | null; readonly limit: number; readonly rootsOnly: boolean },
): Promise<readonly LightSpanRow[]> => {
  const rows = await db.any(sql.type(lightSpanRow)`
    SELECT s.id, s.span_id, s.parent_id, s.name, s.span_kind, s.status_code, s.status_message,
      ${micros('s.start_time')} AS start_us, ${micros('s.end_time')} AS end_us, s.llm_token_count_prompt, s.llm_token_count_completion,
      s.cost_prompt, s.cost_completion, s.cost_total
    FROM spans s
    WHERE s.trace_rowid = ${trace.id} AND ${withinTraces(sql.fragment`id = ${trace.id}`)}
      ${page.fromRowid === null ? sql.fragment`` : sql.fragment`AND s.id >= ${page.fromRowid}`}
      ${page.rootsOnly ? sql.fragment`AND s.parent_id IS NULL` : sql.fragment``}
    ORDER BY s.id LIMIT ${page.limit + 1}`);
  return rows.map((r) => ({ ...r, trace_rowid: trace.id, trace_id: trace.traceId, project_id: trace.projectRowid }));
};

/** How many direct children each of these spans has (by OpenTelemetry span id, within its trace). */
export const childCounts = async (
  db: CommonQueryMethods,
  spans: readonly { readonly traceRowid: number; readonly spanId: string }[],
): Promise<Map<string, number>> => {
  if (spans.length === 0) return new Map();
  const rows = await db.any(sql.type(z.object({ parent_id: z.string(), n: z.number() }))`
    SELECT s.parent_id, count(*)::int AS n FROM spans s
    WHERE s.trace_rowid = ANY(${ids([...new Set(spans.map((s) => s.traceRowid))])}) AND s.parent_id = ANY(${texts(spans.map((s) => s.spanId))})
    GROUP BY s.parent_id`);
  return new Map(rows.map((r) => [r.parent_id, r.n]));
};

const sessionDetailRow = sessionAggregateRow.extend({ project_id: z.bigint().transform(Number), traces_with_error: z.number() });

export type SessionDetailRow = z.infer<typeof sessionDetailRow>;

const sessionDetailColumns = sql.fragment`${sessionColumns}, s.project_id,
  (SELECT count(*)::int FROM traces t WHERE t.session_id = s.id AND t.error_count > 0) AS traces_with_error`;

export const sessionsByIds = (db: CommonQueryMethods, sessionRowids: readonly number[]): Promise<readonly SessionDetailRow[]> =>
  sessionRowids.length === 0
    ? Promise.resolve([])
    : db.any(sql.type(sessionDetailRow)`SELECT ${sessionDetailColumns} FROM sessions s WHERE s.id = ANY(${ids(sessionRowids)})`);

export const sessionsByOtelIds = (db: CommonQueryMethods, sessionIds: readonly string[]): Promise<readonly SessionDetailRow[]> =>
  sessionIds.length === 0
    ? Promise.resolve([])
    : db.any(sql.type(sessionDetailRow)`SELECT ${sessionDetailColumns} FROM sessions s WHERE s.session_id = ANY(${texts(sessionIds)})`);

/** The root spans of these traces (the one the trace row names), with their attributes for input/output. */
export const rootSpansOfTraces = (db: CommonQueryMethods, traceRowids: readonly number[]): Promise<readonly FullSpanRow[]> =>
  traceRowids.length === 0
    ? Promise.resolve([])
    : db.any(sql.type(fullSpanRow)`
        SELECT ${fullSpanColumns} FROM traces t JOIN spans s ON s.span_id = t.root_span_id
        WHERE t.id = ANY(${ids(traceRowids)})`);
