import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { costColumns } from './costColumns.ts';
import { micros } from './micros.ts';
import { withinTraces } from './withinTraces.ts';
import { type SortColumn, sortKey } from './sortKey.ts';

/** A trace as the trace lists read it (`traceColumns` of `traces t`). */
const traceRow = z.object({
  id: z.bigint().transform(Number),
  trace_id: z.string(),
  project_id: z.bigint().transform(Number),
  start_us: z.bigint(),
  end_us: z.bigint(),
  token_count_prompt: z.bigint().transform(Number),
  token_count_completion: z.bigint().transform(Number),
  ...costColumns,
});

export type TraceRow = z.infer<typeof traceRow>;

type Condition = ReturnType<typeof sql.fragment>;

export type TraceFilter = {
  readonly projectId: number;
  /** By cost: the traces with no priced span come last, whichever the order. */
  readonly sort: SortColumn;
  readonly order: 'asc' | 'desc';
  readonly limit: number;
  /** Row id of the first trace of the page. */
  readonly cursor: number | null;
  /** On the trace's start time: start inclusive, end exclusive. */
  readonly startTime?: string;
  readonly endTime?: string;
  /** Only traces of these sessions (row ids); an empty list matches nothing. */
  readonly sessionIds?: readonly number[];
};

/** Where the page starts: the cursor trace's sort key (as text, exact), or null when it is gone. */
const cursorKey = (db: CommonQueryMethods, key: ReturnType<typeof sortKey>['key'], cursor: number): Promise<string | null> =>
  db.maybeOneFirst(sql.type(z.object({ key: z.string() }))`SELECT (${key})::text AS key FROM traces t WHERE t.id = ${cursor}`);

/**
 * One page of a project's traces, sorted with ties broken by row id in the same direction. The
 * cursor is the first trace of the page; unlike Phoenix (which compares row ids whatever the
 * sort) the page starts at that trace's sort key, so no page skips or repeats a trace, and the
 * (project, key, id) index serves the page. A cursor whose trace is gone falls back to Phoenix's
 * row-id comparison.
 */
export const listTraces = async (
  db: CommonQueryMethods,
  f: TraceFilter,
  /** Further conditions on `traces t` (e.g. on its root span, filteredTraceQueries.ts). */
  extra: readonly Condition[] = [],
): Promise<readonly TraceRow[]> => {
  const desc = f.order === 'desc';
  const cmp = desc ? sql.fragment`<=` : sql.fragment`>=`;
  const { key, type: keyType } = sortKey('t', f.sort, f.order);
  const start = f.cursor === null ? null : await cursorKey(db, key, f.cursor);
  const where = [
    sql.fragment`t.project_id = ${f.projectId}`,
    ...(f.cursor === null
      ? []
      : start === null
        ? [sql.fragment`t.id ${cmp} ${f.cursor}`]
        : [sql.fragment`(${key}, t.id) ${cmp} (${start}::${keyType}, ${f.cursor})`]),
    ...(f.startTime !== undefined ? [sql.fragment`t.start_time >= ${f.startTime}::timestamptz`] : []),
    ...(f.endTime !== undefined ? [sql.fragment`t.start_time < ${f.endTime}::timestamptz`] : []),
    ...(f.sessionIds !== undefined ? [sql.fragment`t.session_id = ANY(${sql.array([...f.sessionIds], 'int8')})`] : []),
    ...extra,
  ];
  const direction = desc ? sql.fragment`DESC` : sql.fragment`ASC`;
  return db.any(sql.type(traceRow)`
    SELECT t.id, t.trace_id, t.project_id, ${micros('t.start_time')} AS start_us, ${micros('t.end_time')} AS end_us,
      t.token_count_prompt, t.token_count_completion, t.cost_prompt, t.cost_completion, t.cost_total
    FROM traces t
    WHERE ${sql.join(where, sql.fragment` AND `)}
    ORDER BY ${key} ${direction}, t.id ${direction}
    LIMIT ${f.limit + 1}`);
};

const traceSpanRow = z.object({
  id: z.bigint().transform(Number),
  trace_rowid: z.bigint().transform(Number),
  span_id: z.string(),
  parent_id: z.string().nullable(),
  name: z.string(),
  span_kind: z.string(),
  status_code: z.string(),
  start_us: z.bigint(),
  end_us: z.bigint(),
});

export type TraceSpanRow = z.infer<typeof traceSpanRow>;

/** The spans of these traces, each trace's in start-time order. */
export const spansOfTraces = (db: CommonQueryMethods, traceIds: readonly number[]): Promise<readonly TraceSpanRow[]> =>
  traceIds.length === 0
    ? Promise.resolve([])
    : db.any(sql.type(traceSpanRow)`
        SELECT s.id, s.trace_rowid, s.span_id, s.parent_id, s.name, s.span_kind, s.status_code,
          ${micros('s.start_time')} AS start_us, ${micros('s.end_time')} AS end_us
        FROM spans s WHERE s.trace_rowid = ANY(${sql.array([...traceIds], 'int8')})
          AND ${withinTraces(sql.fragment`id = ANY(${sql.array([...traceIds], 'int8')})`)}
        ORDER BY s.trace_rowid, s.start_time, s.id`);

const traceOwner = z.object({
  id: z.bigint().transform(Number),
  trace_id: z.string(),
  project_rowid: z.bigint().transform(Number),
  project_id: z.string(),
  project_name: z.string(),
});

export type TraceOwner = z.infer<typeof traceOwner>;

/** A trace by row id or OpenTelemetry trace id, with its project (for a deletion). */
export const findTrace = (
  db: CommonQueryMethods,
  key: { readonly id: number } | { readonly traceId: string },
): Promise<TraceOwner | null> =>
  db.maybeOne(sql.type(traceOwner)`
    SELECT t.id, t.trace_id, p.id AS project_rowid, p.project_id::text AS project_id, p.name AS project_name
    FROM traces t JOIN projects p ON p.id = t.project_id
    WHERE ${'id' in key ? sql.fragment`t.id = ${key.id}` : sql.fragment`t.trace_id = ${key.traceId}`}`);
