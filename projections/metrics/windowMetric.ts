import { sql, type CommonQueryMethods } from 'slonik';
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

const projectRowid = (projectId: string) => sql.fragment`(SELECT p.id FROM projects p WHERE p.project_id = ${projectId}::uuid)`;

/** The key two rules' windows share a measurement under. */
export const traceWindowKey = (w: TraceWindow): string => JSON.stringify([w.projectId, w.filter.trim(), w.start, w.end]);

const segmentRow = z.object({
  seg: z.number(),
  n: z.number(),
  errors: z.number(),
  tokens: z.number(),
  cost: z.number(),
  bins: z.array(z.number()),
  counts: z.array(z.number()),
  lows: z.array(z.number().nullable()),
  highs: z.array(z.number().nullable()),
});
type Segment = z.infer<typeof segmentRow>;

/**
 * Every window of a project (and filter) from one read. The windows' starts and ends, sorted, cut
 * time into segments; each trace (or rollup hour) lies in exactly one, so one statement sums the
 * segments (counts, errors, tokens, cost and a latency histogram each) and a window is the run of
 * segments between its two ends. A thousand windows of their own then cost one scan of the
 * longest one's traces instead of a scan each (BENCHMARKS §21).
 *
 * Without a filter, an hour with no window end inside it is one row of the hourly rollup
 * (traceRollup.ts), not its traces: only hours some window cuts are read from the trace rows.
 * A filter needs the rows, under the filtered lists' statement timeout.
 *
 * Latency quantiles come from the merged histogram (5 % bins, as the metrics page's); a bin read
 * from the trace rows carries its least and greatest latency, so a quantile among equal latencies
 * is exact and any other within the bin's true range.
 */
const measureSegmented = async (
  db: CommonQueryMethods,
  projectId: string,
  filter: string,
  windows: readonly TraceWindow[],
): Promise<Map<string, TraceWindowMeasures>> => {
  const cuts = [...new Set(windows.flatMap((w) => [Date.parse(w.start), Date.parse(w.end)]))].sort((a, b) => a - b);
  const filtered = filter.trim() !== '';
  const first = cuts[0]!;
  const last = cuts.at(-1)!;
  // Hours a window end falls strictly inside are read from the traces; the others from the rollup.
  const cutHours = new Set(cuts.filter((t) => t % HOUR_MS !== 0).map((t) => Math.floor(t / HOUR_MS) * HOUR_MS));
  const rowHours: string[] = [];
  const rolledHours: string[] = [];
  for (let h = Math.floor(first / HOUR_MS) * HOUR_MS; h < last; h += HOUR_MS)
    (filtered || cutHours.has(h) ? rowHours : rolledHours).push(new Date(h).toISOString());
  const iso = (ms: number) => new Date(ms).toISOString();
  const thresholds = sql.array(cuts.map(iso), 'timestamptz');
  const project = projectRowid(projectId);
  const duration = sql.fragment`extract(epoch FROM t.end_time - t.start_time)::float8 * 1000`;
  const rolled =
    rolledHours.length === 0
      ? sql.fragment``
      : sql.fragment`
        UNION ALL
        SELECT width_bucket(h.hour, ${thresholds}), h.trace_count, h.error_count, h.token_count_prompt + h.token_count_completion,
          h.cost_total, l.bins, l.counts, NULL, NULL
        FROM trace_metric_hours h
        LEFT JOIN LATERAL (
          SELECT array_agg(bin::int ORDER BY bin) AS bins, array_agg(count ORDER BY bin) AS counts
          FROM trace_latency_hours l WHERE l.project_id = h.project_id AND l.hour = h.hour
        ) l ON true
        WHERE h.project_id = ${project} AND h.hour = ANY(${sql.array(rolledHours, 'timestamptz')})`;
  const statement = sql.type(segmentRow)`
    WITH per_trace AS MATERIALIZED (
      SELECT width_bucket(t.start_time, ${thresholds}) AS seg, ${latencyBin}::int AS bin, ${duration} AS d, t.error_count > 0 AS e,
        t.token_count_prompt + t.token_count_completion AS tk, t.cost_total AS c
      FROM unnest(${sql.array(rowHours, 'timestamptz')}) AS hr(h)
      JOIN traces t ON t.project_id = ${project}
        AND t.start_time >= greatest(hr.h, ${iso(first)}::timestamptz) AND t.start_time < least(hr.h + interval '1 hour', ${iso(last)}::timestamptz)
      ${filtered ? sql.fragment`AND ${compileFilter(parseFilter(filter), 'trace')}` : sql.fragment``}
    ), per_bin AS (
      SELECT seg, bin, count(*)::int AS n, (count(*) FILTER (WHERE e))::int AS errors, sum(tk)::numeric AS tokens,
        coalesce(sum(c::numeric), 0) AS cost, min(d) AS low, max(d) AS high
      FROM per_trace GROUP BY 1, 2
    ), parts AS (
      SELECT seg, sum(n)::int AS n, sum(errors)::int AS errors, sum(tokens) AS tokens, sum(cost) AS cost,
        array_agg(bin ORDER BY bin) AS bins, array_agg(n ORDER BY bin) AS counts,
        array_agg(low ORDER BY bin) AS lows, array_agg(high ORDER BY bin) AS highs
      FROM per_bin GROUP BY seg
      ${rolled}
    )
    SELECT seg, n, errors, coalesce(tokens, 0)::float8 AS tokens, coalesce(cost, 0)::float8 AS cost,
      coalesce(bins, '{}') AS bins, coalesce(counts, '{}') AS counts, coalesce(lows, '{}') AS lows, coalesce(highs, '{}') AS highs
    FROM parts`;
  const segments = filtered
    ? await db.transaction(async (tx) => {
        await tx.query(sql.unsafe`SELECT set_config('statement_timeout', ${String(FILTERED_TIMEOUT_MS)}, true)`);
        return tx.any(statement);
      })
    : await db.any(statement);
  return windowsOfSegments(cuts, segments, windows);
};

/** The ranks percentile_cont reads for the alert quantiles among n values. */
const QUANTILES = [0.5, 0.95, 0.99];
const ranksRead = (n: number): number[] =>
  QUANTILES.flatMap((p) => [Math.floor(p * (n - 1)), Math.min(n - 1, Math.floor(p * (n - 1)) + 1)]);

/**
 * Each window's measures from the segments (segment k lies between cuts k-1 and k): counts and
 * histograms as running totals (integers: exact), token and cost sums added up per window (floats
 * in a fixed order, so a threshold compares with the same value every time), and the least and
 * greatest latency of the few bins the quantiles fall in.
 */
const windowsOfSegments = (
  cuts: readonly number[],
  rows: readonly Segment[],
  windows: readonly TraceWindow[],
): Map<string, TraceWindowMeasures> => {
  const m = cuts.length;
  const binsAsc = [...new Set(rows.flatMap((r) => r.bins))].sort((a, b) => a - b);
  const binIndex = new Map(binsAsc.map((b, i) => [b, i]));
  const width = binsAsc.length;
  // Per segment: tokens and cost; per segment and bin: least and greatest latency (NaN: a rollup hour, bounds unknown).
  const tokens = new Float64Array(m + 1);
  const cost = new Float64Array(m + 1);
  const low = new Float64Array((m + 1) * width).fill(Number.POSITIVE_INFINITY);
  const high = new Float64Array((m + 1) * width).fill(Number.NEGATIVE_INFINITY);
  // Running totals through segment k: traces, errors, and each bin's count.
  const traces = new Float64Array(m + 1);
  const errors = new Float64Array(m + 1);
  const hist = new Float64Array((m + 1) * width);
  for (const r of rows) {
    tokens[r.seg] += r.tokens;
    cost[r.seg] += r.cost;
    traces[r.seg] += r.n;
    errors[r.seg] += r.errors;
    r.bins.forEach((bin, x) => {
      const at = r.seg * width + binIndex.get(bin)!;
      hist[at] += r.counts[x]!;
      const [lo, hi] = [r.lows[x], r.highs[x]];
      if (lo === null || lo === undefined || hi === null || hi === undefined) low[at] = high[at] = Number.NaN;
      else if (!Number.isNaN(low[at]!)) {
        low[at] = Math.min(low[at]!, lo);
        high[at] = Math.max(high[at]!, hi);
      }
    });
  }
  for (let k = 1; k <= m; k++) {
    traces[k] += traces[k - 1]!;
    errors[k] += errors[k - 1]!;
    for (let x = 0; x < width; x++) hist[k * width + x] += hist[(k - 1) * width + x]!;
  }
  const at = new Map(cuts.map((t, k) => [t, k]));
  const out = new Map<string, TraceWindowMeasures>();
  for (const w of windows) {
    const i = at.get(Date.parse(w.start))!;
    const j = at.get(Date.parse(w.end))!;
    let tk = 0;
    let c = 0;
    for (let k = i + 1; k <= j; k++) {
      tk += tokens[k]!;
      c += cost[k]!;
    }
    const n = traces[j]! - traces[i]!;
    const bins: { bin: number; count: number; low?: number; high?: number }[] = [];
    const ranks = ranksRead(n);
    let before = 0;
    for (let x = 0; x < width; x++) {
      const count = hist[j * width + x]! - hist[i * width + x]!;
      if (count === 0) continue;
      const bin: (typeof bins)[number] = { bin: binsAsc[x]!, count };
      // Only a bin some quantile reads needs its latency range: a scan of the window's segments.
      if (ranks.some((r) => r >= before && r < before + count)) {
        let [lo, hi] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
        for (let k = i + 1; k <= j; k++) {
          lo = Math.min(lo, low[k * width + x]!);
          hi = Math.max(hi, high[k * width + x]!);
        }
        if (!Number.isNaN(lo) && !Number.isNaN(hi)) Object.assign(bin, { low: lo, high: hi });
      }
      before += count;
      bins.push(bin);
    }
    const [p50, p95, p99] = n === 0 ? [null, null, null] : histogramQuantiles(bins, QUANTILES);
    out.set(traceWindowKey(w), {
      traceCount: n,
      errorCount: errors[j]! - errors[i]!,
      tokens: tk,
      cost: c,
      latency: { p50: p50 ?? null, p95: p95 ?? null, p99: p99 ?? null },
    });
  }
  return out;
};

/**
 * Many windows at once: those of one project and filter from one statement (measureSegmented), so
 * rules on windows of their own cost one read per project and filter, not one per window.
 */
export const measureTraceWindows = async (
  db: CommonQueryMethods,
  windows: readonly TraceWindow[],
): Promise<Map<string, TraceWindowMeasures>> => {
  const groups = new Map<string, TraceWindow[]>();
  for (const w of windows) {
    const key = JSON.stringify([w.projectId, w.filter.trim()]);
    groups.set(key, [...(groups.get(key) ?? []), w]);
  }
  const out = new Map<string, TraceWindowMeasures>();
  for (const list of groups.values())
    for (const [key, m] of await measureSegmented(db, list[0]!.projectId, list[0]!.filter, list)) out.set(key, m);
  return out;
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
