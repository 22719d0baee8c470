import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { AlertMetric } from '../../domain/alerts/alertRule.ts';
import { parseFilter } from '../../domain/filters/filterSyntax.ts';
import { compileFilter } from '../filters/compileFilter.ts';
import { latencyBin } from '../tracing/traceRollup.ts';
import { histogramQuantiles } from './metricQueries.ts';

/** One metric of one project over one window `[start, end)` (ISO times), optionally of the traces a filter matches. */
export type WindowMetricQuery = {
  readonly projectId: string;
  readonly metric: AlertMetric;
  readonly annotationName: string | null;
  readonly annotationLabel: string | null;
  readonly filter: string;
  readonly start: string;
  readonly end: string;
};

const HOUR_MS = 3_600_000;
/** A filtered window reads the trace rows: bounded like any filtered list (projections/filters/boundedQuery.ts). */
const FILTERED_TIMEOUT_MS = 10_000;

const sums = z.object({
  n: z.number(),
  errors: z.number(),
  tokens: z.number(),
  cost: z.number(),
});
const quantiles = z.object({ latency: z.array(z.number().nullable()) });
const histogram = z.object({ bin: z.number(), count: z.number() });
const QUANTILE = { latency_p50: 0.5, latency_p95: 0.95, latency_p99: 0.99 } as const;

const projectRowid = (projectId: string) => sql.fragment`(SELECT p.id FROM projects p WHERE p.project_id = ${projectId}::uuid)`;

/** The window's whole hours (read from the hourly rollup) and its partial ends (read from the trace rows). */
const split = (q: WindowMetricQuery) => {
  const [startMs, endMs] = [Date.parse(q.start), Date.parse(q.end)];
  let from = Math.ceil(startMs / HOUR_MS) * HOUR_MS;
  let to = Math.floor(endMs / HOUR_MS) * HOUR_MS;
  if (from >= to) from = to = endMs;
  return { a: new Date(from).toISOString(), b: new Date(to).toISOString(), whole: from < to };
};

/**
 * The value a rule watches, or null when the window holds nothing to measure (no traces for a
 * rate or a latency, no annotation of that name for a score). Counts, tokens and cost of an empty
 * window are 0. No span is read: traces (one row per trace, with its errors, tokens, cost and
 * extent) by their project and start time (`traces_project_start`), whole hours from the
 * metrics page's hourly rollup (projections/tracing/traceRollup.ts: latency quantiles within a 5 %
 * bin there), annotations from their index by target project and start.
 */
export const windowMetric = async (db: CommonQueryMethods, q: WindowMetricQuery): Promise<number | null> => {
  if (q.metric === 'annotation_score') return annotationValue(db, q);
  const filtered = q.filter.trim() !== '';
  const { a, b, whole } = filtered ? { a: q.end, b: q.end, whole: false } : split(q);
  const traceRange = (from: string, to: string): FragmentSqlToken =>
    sql.fragment`t.project_id = ${projectRowid(q.projectId)} AND t.start_time >= ${from}::timestamptz AND t.start_time < ${to}::timestamptz${
      filtered ? sql.fragment` AND ${compileFilter(parseFilter(q.filter), 'trace')}` : sql.fragment``
    }`;
  const edges = whole ? sql.fragment`(${traceRange(q.start, a)}) OR (${traceRange(b, q.end)})` : traceRange(q.start, q.end);
  const run = async <T>(query: (db: CommonQueryMethods) => Promise<T>): Promise<T> =>
    filtered
      ? db.transaction(async (tx) => {
          await tx.query(sql.unsafe`SELECT set_config('statement_timeout', ${String(FILTERED_TIMEOUT_MS)}, true)`);
          return query(tx);
        })
      : query(db);
  if (q.metric in QUANTILE) {
    const p = QUANTILE[q.metric as keyof typeof QUANTILE];
    if (!whole) {
      const [value] = await run((db) =>
        db.oneFirst(sql.type(quantiles)`
          SELECT ARRAY[extract(epoch FROM percentile_cont(${p}::float8) WITHIN GROUP (ORDER BY t.end_time - t.start_time)) * 1000]::float8[] AS latency
          FROM traces t WHERE ${edges}`),
      );
      return value ?? null;
    }
    const bins = await db.any(sql.type(histogram)`
      SELECT bin, sum(count)::int AS count FROM (
        SELECT bin::int, count FROM trace_latency_hours
        WHERE project_id = ${projectRowid(q.projectId)} AND hour >= ${a}::timestamptz AND hour < ${b}::timestamptz
        UNION ALL
        SELECT ${latencyBin}::int, 1 FROM traces t WHERE ${edges}
      ) x GROUP BY bin ORDER BY bin`);
    return histogramQuantiles(bins, [p])[0] ?? null;
  }
  const hours = whole
    ? sql.fragment`SELECT trace_count AS n, error_count AS e, token_count_prompt + token_count_completion AS tk, cost_total AS c
        FROM trace_metric_hours WHERE project_id = ${projectRowid(q.projectId)} AND hour >= ${a}::timestamptz AND hour < ${b}::timestamptz
        UNION ALL `
    : sql.fragment``;
  const row = await run((db) =>
    db.one(sql.type(sums)`
      SELECT coalesce(sum(n), 0)::int AS n, coalesce(sum(e), 0)::int AS errors, coalesce(sum(tk), 0)::float8 AS tokens, coalesce(sum(c), 0)::float8 AS cost
      FROM (${hours}SELECT 1 AS n, (t.error_count > 0)::int AS e, (t.token_count_prompt + t.token_count_completion)::numeric AS tk,
        coalesce(t.cost_total::numeric, 0) AS c FROM traces t WHERE ${edges}) parts`),
  );
  switch (q.metric) {
    case 'error_rate':
      return row.n === 0 ? null : row.errors / row.n;
    case 'trace_count':
      return row.n;
    case 'tokens':
      return row.tokens;
    default:
      return row.cost;
  }
};

/** An annotation's mean score, or the share of them with the label, over the targets started in the window. */
const annotationValue = async (db: CommonQueryMethods, q: WindowMetricQuery): Promise<number | null> =>
  db.oneFirst(sql.type(z.object({ v: z.number().nullable() }))`
    SELECT ${q.annotationLabel === null ? sql.fragment`avg(a.score)` : sql.fragment`avg((a.label IS NOT DISTINCT FROM ${q.annotationLabel})::int)`}::float8 AS v
    FROM annotations a
    WHERE a.target_project = ${q.projectId}::uuid AND a.name = ${q.annotationName ?? ''}
      ${q.annotationLabel === null ? sql.fragment`AND a.score IS NOT NULL` : sql.fragment``}
      AND a.target_start >= ${q.start}::timestamptz AND a.target_start < ${q.end}::timestamptz`);
