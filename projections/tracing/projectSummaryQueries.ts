import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { micros } from './micros.ts';

export type TimeWindow = {
  /** ISO timestamps on the trace's (or span's) start time: start inclusive, end exclusive; null = open. */
  readonly start: string | null;
  readonly end: string | null;
};

const summaryRow = z.object({
  project_id: z.bigint().transform(Number),
  trace_count: z.number(),
  span_count: z.number(),
  latency_p50_ms: z.number().nullable(),
  latency_p99_ms: z.number().nullable(),
  token_count_prompt: z.number(),
  token_count_completion: z.number(),
  traces_with_error: z.number(),
  cost_prompt: z.number().nullable(),
  cost_completion: z.number().nullable(),
  cost_total: z.number().nullable(),
  last_activity_us: z.bigint().nullable(),
});

export type ProjectSummaryRow = z.infer<typeof summaryRow>;

/**
 * Per project over a time window, in one statement for many projects: trace and span counts,
 * latency quantiles, LLM token and cost sums (null cost: nothing priced) and traces with an error, all from the trace rows (the
 * projector keeps each trace's extent, span count, error count and token sums), so the cost grows
 * with the traces in the window, never with their spans. Latency is the trace's extent (first span
 * start to last span end): the root span's latency whenever the root encloses its children, as it
 * does in instrumented code; joining every root span instead costs several times more on a
 * million-span project. A trace belongs to the window by its start time. Last activity is the end
 * of the most recently started trace, whatever the window.
 */
export const projectSummaries = async (
  db: CommonQueryMethods,
  projectRowids: readonly number[],
  window: TimeWindow,
): Promise<Map<number, ProjectSummaryRow>> => {
  if (projectRowids.length === 0) return new Map();
  const inWindow = [
    sql.fragment`t.project_id = ANY(${sql.array([...projectRowids], 'int8')})`,
    ...(window.start !== null ? [sql.fragment`t.start_time >= ${window.start}::timestamptz`] : []),
    ...(window.end !== null ? [sql.fragment`t.start_time < ${window.end}::timestamptz`] : []),
  ];
  const rows = await db.any(sql.type(summaryRow)`
    WITH p AS (SELECT unnest(${sql.array([...projectRowids], 'int8')}) AS project_id),
    w AS (
      SELECT t.project_id, count(*)::int AS trace_count, coalesce(sum(t.span_count), 0)::int AS span_count,
        -- one sort for both quantiles, on the interval itself (cheaper than on a computed epoch)
        percentile_cont(ARRAY[0.5, 0.99]::float8[]) WITHIN GROUP (ORDER BY t.end_time - t.start_time) AS latency,
        coalesce(sum(t.token_count_prompt), 0)::float8 AS token_count_prompt,
        coalesce(sum(t.token_count_completion), 0)::float8 AS token_count_completion,
        (count(*) FILTER (WHERE t.error_count > 0))::int AS traces_with_error,
        sum(t.cost_prompt) AS cost_prompt, sum(t.cost_completion) AS cost_completion, sum(t.cost_total) AS cost_total
      FROM traces t
      WHERE ${sql.join(inWindow, sql.fragment` AND `)}
      GROUP BY t.project_id
    )
    SELECT p.project_id, coalesce(w.trace_count, 0) AS trace_count, coalesce(w.span_count, 0) AS span_count,
      (extract(epoch FROM w.latency[1]) * 1000)::float8 AS latency_p50_ms, (extract(epoch FROM w.latency[2]) * 1000)::float8 AS latency_p99_ms, coalesce(w.token_count_prompt, 0)::float8 AS token_count_prompt,
      coalesce(w.token_count_completion, 0)::float8 AS token_count_completion, coalesce(w.traces_with_error, 0) AS traces_with_error,
      w.cost_prompt, w.cost_completion, w.cost_total,
      (SELECT ${micros('l.end_time')} FROM traces l WHERE l.project_id = p.project_id ORDER BY l.start_time DESC LIMIT 1) AS last_activity_us
    FROM p LEFT JOIN w ON w.project_id = p.project_id`);
  return new Map(rows.map((r) => [r.project_id, r]));
};

/**
 * A quantile of trace latency (ms, the trace's extent as in `projectSummaries`) over a window for
 * many projects, one statement; null for a project without traces in the window. `probability` in [0, 1].
 */
export const traceLatencyQuantiles = async (
  db: CommonQueryMethods,
  projectRowids: readonly number[],
  probability: number,
  window: TimeWindow,
): Promise<Map<number, number | null>> => {
  if (projectRowids.length === 0) return new Map();
  const where = [
    sql.fragment`t.project_id = ANY(${sql.array([...projectRowids], 'int8')})`,
    ...(window.start !== null ? [sql.fragment`t.start_time >= ${window.start}::timestamptz`] : []),
    ...(window.end !== null ? [sql.fragment`t.start_time < ${window.end}::timestamptz`] : []),
  ];
  const rows = await db.any(sql.type(z.object({ project_id: z.bigint().transform(Number), ms: z.number().nullable() }))`
    SELECT t.project_id, (extract(epoch FROM percentile_cont(${probability}::float8) WITHIN GROUP (ORDER BY t.end_time - t.start_time)) * 1000)::float8 AS ms
    FROM traces t
    WHERE ${sql.join(where, sql.fragment` AND `)}
    GROUP BY t.project_id`);
  const found = new Map(rows.map((r) => [r.project_id, r.ms]));
  return new Map(projectRowids.map((id) => [id, found.get(id) ?? null]));
};
