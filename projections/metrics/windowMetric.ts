import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { AlertMetric } from '../../domain/alerts/alertRule.ts';
import { parseFilter } from '../../domain/filters/filterSyntax.ts';
import { compileFilter } from '../filters/compileFilter.ts';
import { latencyBin } from './traceRollup.ts';
import { histogramQuantiles } from './metricQueries.ts';

/** The traces of one project over one window `[start, end)` (ISO times), optionally those a filter matches. */
export type TraceWindow = { readonly projectId: string; readonly filter: string; readonly start: string; readonly end: string };

/** Everything a rule on traces can watch, measured over one window at once (rules that share a window share it). */
export type TraceWindowMeasures = {
  readonly traceCount: number;
  readonly errorCount: number;
  readonly tokens: number;
  readonly cost: number;
  /** Milliseconds; null without traces. */
  readonly latency: { readonly p50: number | null; readonly p95: number | null; readonly p99: number | null };
};

const HOUR_MS = 3_600_000;
/** A filtered window reads the trace rows: bounded like any filtered list (projections/filters/boundedQuery.ts). */
const FILTERED_TIMEOUT_MS = 10_000;

const sums = z.object({ n: z.number(), errors: z.number(), tokens: z.number(), cost: z.number() });
const quantiles = z.object({ latency: z.array(z.number().nullable()) });
const histogram = z.object({ bin: z.number(), count: z.number() });

const projectRowid = (projectId: string) => sql.fragment`(SELECT p.id FROM projects p WHERE p.project_id = ${projectId}::uuid)`;

/** The window's whole hours (read from the hourly rollup) and its partial ends (read from the trace rows). */
const split = (w: TraceWindow) => {
  const [startMs, endMs] = [Date.parse(w.start), Date.parse(w.end)];
  let from = Math.ceil(startMs / HOUR_MS) * HOUR_MS;
  let to = Math.floor(endMs / HOUR_MS) * HOUR_MS;
  if (from >= to) from = to = endMs;
  return { a: new Date(from).toISOString(), b: new Date(to).toISOString(), whole: from < to };
};

/**
 * Trace count, errors, tokens, cost and latency quantiles of a window. No span is read: traces (one
 * row per trace, with its errors, tokens, cost and extent) by their project and start time
 * (`traces_project_start`), and without a filter the window's whole hours from the metrics page's
 * hourly rollup (projections/metrics/traceRollup.ts: quantiles there within a 5 % bin).
 */
export const traceWindowMeasures = async (db: CommonQueryMethods, w: TraceWindow): Promise<TraceWindowMeasures> => {
  const filtered = w.filter.trim() !== '';
  const { a, b, whole } = filtered ? { a: w.end, b: w.end, whole: false } : split(w);
  const project = projectRowid(w.projectId);
  const traceRange = (from: string, to: string): FragmentSqlToken =>
    sql.fragment`t.project_id = ${project} AND t.start_time >= ${from}::timestamptz AND t.start_time < ${to}::timestamptz${
      filtered ? sql.fragment` AND ${compileFilter(parseFilter(w.filter), 'trace')}` : sql.fragment``
    }`;
  const edges = whole ? sql.fragment`(${traceRange(w.start, a)}) OR (${traceRange(b, w.end)})` : traceRange(w.start, w.end);
  const run = async <T>(query: (db: CommonQueryMethods) => Promise<T>): Promise<T> =>
    filtered
      ? db.transaction(async (tx) => {
          await tx.query(sql.unsafe`SELECT set_config('statement_timeout', ${String(FILTERED_TIMEOUT_MS)}, true)`);
          return query(tx);
        })
      : query(db);
  const hours = whole
    ? sql.fragment`SELECT trace_count AS n, error_count AS e, token_count_prompt + token_count_completion AS tk, cost_total AS c
        FROM trace_metric_hours WHERE project_id = ${project} AND hour >= ${a}::timestamptz AND hour < ${b}::timestamptz
        UNION ALL `
    : sql.fragment``;
  const row = await run((db) =>
    db.one(sql.type(sums)`
      SELECT coalesce(sum(n), 0)::int AS n, coalesce(sum(e), 0)::int AS errors, coalesce(sum(tk), 0)::float8 AS tokens, coalesce(sum(c), 0)::float8 AS cost
      FROM (${hours}SELECT 1 AS n, (t.error_count > 0)::int AS e, (t.token_count_prompt + t.token_count_completion)::numeric AS tk,
        coalesce(t.cost_total::numeric, 0) AS c FROM traces t WHERE ${edges}) parts`),
  );
  let latency: (number | null)[] = [null, null, null];
  if (row.n > 0 && !whole) {
    latency = await run((db) =>
      db.oneFirst(sql.type(quantiles)`
        SELECT ARRAY(SELECT extract(epoch FROM q) * 1000 FROM unnest(
          percentile_cont(ARRAY[0.5, 0.95, 0.99]::float8[]) WITHIN GROUP (ORDER BY t.end_time - t.start_time)) AS q)::float8[] AS latency
        FROM traces t WHERE ${edges}`),
    );
  } else if (row.n > 0) {
    const bins = await db.any(sql.type(histogram)`
      SELECT bin, sum(count)::int AS count FROM (
        SELECT bin::int, count FROM trace_latency_hours WHERE project_id = ${project} AND hour >= ${a}::timestamptz AND hour < ${b}::timestamptz
        UNION ALL
        SELECT ${latencyBin}::int, 1 FROM traces t WHERE ${edges}
      ) x GROUP BY bin ORDER BY bin`);
    latency = histogramQuantiles(bins, [0.5, 0.95, 0.99]);
  }
  return {
    traceCount: row.n,
    errorCount: row.errors,
    tokens: row.tokens,
    cost: row.cost,
    latency: { p50: latency[0] ?? null, p95: latency[1] ?? null, p99: latency[2] ?? null },
  };
};

const windowRow = z.object({
  k: z.number(),
  n: z.number(),
  errors: z.number(),
  tokens: z.number(),
  cost: z.number(),
  latency: z.array(z.number().nullable()),
});

/** The key two rules' windows share a measurement under. */
export const traceWindowKey = (w: TraceWindow): string => JSON.stringify([w.projectId, w.filter.trim(), w.start, w.end]);

/**
 * Many windows at once: those of a project without a filter and without a whole hour (read from
 * the trace rows alone) in one statement per project, each window a lateral range scan of
 * `traces_project_start`; the others one by one (traceWindowMeasures). A thousand rules on
 * windows of their own then cost a few statements, not thousands of round trips.
 */
export const measureTraceWindows = async (
  db: CommonQueryMethods,
  windows: readonly TraceWindow[],
): Promise<Map<string, TraceWindowMeasures>> => {
  const out = new Map<string, TraceWindowMeasures>();
  const byProject = new Map<string, TraceWindow[]>();
  const single: TraceWindow[] = [];
  for (const w of windows) {
    if (out.has(traceWindowKey(w))) continue;
    out.set(traceWindowKey(w), undefined as never);
    if (w.filter.trim() === '' && !split(w).whole) byProject.set(w.projectId, [...(byProject.get(w.projectId) ?? []), w]);
    else single.push(w);
  }
  for (const [projectId, list] of byProject) {
    const rows = await db.any(sql.type(windowRow)`
      SELECT w.k, count(t.d)::int AS n, (count(*) FILTER (WHERE t.e))::int AS errors,
        coalesce(sum(t.tk), 0)::float8 AS tokens, coalesce(sum(t.c), 0)::float8 AS cost,
        ARRAY(SELECT extract(epoch FROM q) * 1000 FROM unnest(
          percentile_cont(ARRAY[0.5, 0.95, 0.99]::float8[]) WITHIN GROUP (ORDER BY t.d)) AS q)::float8[] AS latency
      FROM jsonb_to_recordset(${sql.jsonb(list.map((w, k) => ({ k, s: w.start, e: w.end })))}) AS w(k int, s timestamptz, e timestamptz)
      LEFT JOIN LATERAL (
        SELECT t.end_time - t.start_time AS d, t.error_count > 0 AS e, (t.token_count_prompt + t.token_count_completion)::numeric AS tk,
          coalesce(t.cost_total::numeric, 0) AS c
        FROM traces t WHERE t.project_id = ${projectRowid(projectId)} AND t.start_time >= w.s AND t.start_time < w.e
      ) t ON true
      GROUP BY w.k`);
    for (const r of rows)
      out.set(traceWindowKey(list[r.k]!), {
        traceCount: r.n,
        errorCount: r.errors,
        tokens: r.tokens,
        cost: r.cost,
        latency: { p50: r.latency[0] ?? null, p95: r.latency[1] ?? null, p99: r.latency[2] ?? null },
      });
  }
  const wholeByProject = new Map<string, TraceWindow[]>();
  for (const w of single)
    if (w.filter.trim() === '') wholeByProject.set(w.projectId, [...(wholeByProject.get(w.projectId) ?? []), w]);
    else out.set(traceWindowKey(w), await traceWindowMeasures(db, w));
  for (const [projectId, list] of wholeByProject) for (const [key, m] of await rolledUpWindows(db, projectId, list)) out.set(key, m);
  return out;
};

const rolledUpSums = z.object({ k: z.number(), n: z.number(), errors: z.number(), tokens: z.number(), cost: z.number() });
const rolledUpBins = z.object({ k: z.number(), bins: z.array(z.number()), counts: z.array(z.number()) });

/**
 * A project's windows that hold whole hours, in two statements: each window's sums from the
 * hourly rollup plus its two partial hours from the trace rows, and its latency histogram the same
 * way (quantiles from the merged bins, within a 5 % bin), each window a lateral read.
 */
const rolledUpWindows = async (
  db: CommonQueryMethods,
  projectId: string,
  list: readonly TraceWindow[],
): Promise<Map<string, TraceWindowMeasures>> => {
  const project = projectRowid(projectId);
  const spec = sql.jsonb(
    list.map((w, k) => {
      const { a, b } = split(w);
      return { k, s: w.start, a, b, e: w.end };
    }),
  );
  const windows = sql.fragment`jsonb_to_recordset(${spec}) AS w(k int, s timestamptz, a timestamptz, b timestamptz, e timestamptz)`;
  const edges = sql.fragment`t.project_id = ${project} AND ((t.start_time >= w.s AND t.start_time < w.a) OR (t.start_time >= w.b AND t.start_time < w.e))`;
  const sums = await db.any(sql.type(rolledUpSums)`
    SELECT w.k, coalesce(sum(p.n), 0)::int AS n, coalesce(sum(p.e), 0)::int AS errors, coalesce(sum(p.tk), 0)::float8 AS tokens,
      coalesce(sum(p.c), 0)::float8 AS cost
    FROM ${windows} LEFT JOIN LATERAL (
      SELECT trace_count AS n, error_count AS e, token_count_prompt + token_count_completion AS tk, cost_total AS c
      FROM trace_metric_hours WHERE project_id = ${project} AND hour >= w.a AND hour < w.b
      UNION ALL
      SELECT 1, (t.error_count > 0)::int, (t.token_count_prompt + t.token_count_completion)::numeric, coalesce(t.cost_total::numeric, 0)
      FROM traces t WHERE ${edges}
    ) p ON true
    GROUP BY w.k`);
  const bins = await db.any(sql.type(rolledUpBins)`
    SELECT k, array_agg(bin ORDER BY bin) AS bins, array_agg(count ORDER BY bin) AS counts FROM (
      SELECT w.k, x.bin, sum(x.count)::int AS count
      FROM ${windows} JOIN LATERAL (
        SELECT bin::int AS bin, count FROM trace_latency_hours WHERE project_id = ${project} AND hour >= w.a AND hour < w.b
        UNION ALL
        SELECT ${latencyBin}::int, 1 FROM traces t WHERE ${edges}
      ) x ON true
      GROUP BY w.k, x.bin
    ) per_bin GROUP BY k`);
  const histograms = new Map(bins.map((h) => [h.k, h.bins.map((bin, i) => ({ bin, count: h.counts[i]! }))]));
  return new Map(
    sums.map((r) => {
      const [p50, p95, p99] = r.n === 0 ? [null, null, null] : histogramQuantiles(histograms.get(r.k) ?? [], [0.5, 0.95, 0.99]);
      return [
        traceWindowKey(list[r.k]!),
        {
          traceCount: r.n,
          errorCount: r.errors,
          tokens: r.tokens,
          cost: r.cost,
          latency: { p50: p50 ?? null, p95: p95 ?? null, p99: p99 ?? null },
        },
      ];
    }),
  );
};

/**
 * The value a rule on traces watches, or null when the window holds nothing to measure (no traces
 * for a rate or a latency). Counts, tokens and cost of an empty window are 0.
 */
export const traceMetricValue = (m: TraceWindowMeasures, metric: Exclude<AlertMetric, 'annotation_score'>): number | null => {
  switch (metric) {
    case 'error_rate':
      return m.traceCount === 0 ? null : m.errorCount / m.traceCount;
    case 'latency_p50':
      return m.latency.p50;
    case 'latency_p95':
      return m.latency.p95;
    case 'latency_p99':
      return m.latency.p99;
    case 'trace_count':
      return m.traceCount;
    case 'tokens':
      return m.tokens;
    case 'cost':
      return m.cost;
  }
};

/**
 * An annotation's mean score, or the share of them with `label`, over the targets started in the
 * window (from the annotations' index by target project and start); null when there is none.
 */
export const annotationWindowValue = async (
  db: CommonQueryMethods,
  w: Omit<TraceWindow, 'filter'> & { readonly name: string; readonly label: string | null },
): Promise<number | null> =>
  db.oneFirst(sql.type(z.object({ v: z.number().nullable() }))`
    SELECT ${w.label === null ? sql.fragment`avg(a.score)` : sql.fragment`avg((a.label IS NOT DISTINCT FROM ${w.label})::int)`}::float8 AS v
    FROM annotations a
    WHERE a.target_project = ${w.projectId}::uuid AND a.name = ${w.name}
      ${w.label === null ? sql.fragment`AND a.score IS NOT NULL` : sql.fragment``}
      AND a.target_start >= ${w.start}::timestamptz AND a.target_start < ${w.end}::timestamptz`);
