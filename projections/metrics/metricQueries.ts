import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { hourOf, LATENCY_BIN_RATIO, latencyBin } from './traceRollup.ts';

/** Bucket widths a series is drawn in, chosen to fit the range (`bucketFor`). */
export const BUCKETS = { minute: 60, hour: 3600, day: 86_400 } as const;
export type Bucket = keyof typeof BUCKETS;

/** At most this many points per series: a minute grid up to 3 hours, hours up to 10 days, then days. */
const MAX_POINTS = 240;

/** The finest bucket that draws the range in at most MAX_POINTS points. */
export const bucketFor = (startMs: number, endMs: number): Bucket => {
  const seconds = Math.max(1, (endMs - startMs) / 1000);
  if (seconds / BUCKETS.minute <= MAX_POINTS) return 'minute';
  if (seconds / BUCKETS.hour <= MAX_POINTS) return 'hour';
  return 'day';
};

export type MetricWindow = { readonly projectRowid: number; readonly start: string; readonly end: string; readonly bucket: Bucket };

const traceBucketRow = z.object({
  bucket_us: z.bigint(),
  trace_count: z.number(),
  error_count: z.number(),
  latency: z.array(z.number().nullable()),
  token_count_prompt: z.number(),
  token_count_completion: z.number(),
  cost: z.number().nullable(),
});
export type TraceBucketRow = z.infer<typeof traceBucketRow>;

/** `date_bin` of a start time into the window's buckets, anchored at the epoch (a bucket never straddles midnight UTC). */
const binned = (column: string, bucket: Bucket) =>
  sql.fragment`date_bin(${`${BUCKETS[bucket]} seconds`}::interval, ${sql.identifier(column.split('.'))}, 'epoch'::timestamptz)`;

/**
 * Per bucket of trace start time: traces, traces with an error, latency p50/p95/p99 (ms, the
 * trace's extent, as the project cards), LLM token and cost sums. Buckets without traces are
 * left out (the chart draws them as gaps).
 *
 * Minute buckets (ranges up to 4 hours) read the trace rows, with exact quantiles. Hour and day
 * buckets read the hourly rollup the projector keeps (projections/metrics/traceRollup.ts), so a
 * month costs 720 rows, not every trace of it: exact counts and sums, and quantiles from the
 * merged latency histograms, within a bin (5 %) of the exact value. Only the partial hours at
 * the range's two ends are read from the trace rows.
 */
export const traceMetricBuckets = (db: CommonQueryMethods, w: MetricWindow): Promise<readonly TraceBucketRow[]> =>
  w.bucket === 'minute' ? exactTraceBuckets(db, w) : rolledUpTraceBuckets(db, w);

/** The trace series from the trace rows themselves: one pass over the project's traces in the window. */
export const exactTraceBuckets = (db: CommonQueryMethods, w: MetricWindow): Promise<readonly TraceBucketRow[]> =>
  db.any(sql.type(traceBucketRow)`
    SELECT (extract(epoch FROM ${binned('t.start_time', w.bucket)}) * 1000000)::bigint AS bucket_us,
      count(*)::int AS trace_count,
      (count(*) FILTER (WHERE t.error_count > 0))::int AS error_count,
      ARRAY(SELECT extract(epoch FROM q) * 1000 FROM unnest(
        percentile_cont(ARRAY[0.5, 0.95, 0.99]::float8[]) WITHIN GROUP (ORDER BY t.end_time - t.start_time)) AS q)::float8[] AS latency,
      coalesce(sum(t.token_count_prompt), 0)::float8 AS token_count_prompt,
      coalesce(sum(t.token_count_completion), 0)::float8 AS token_count_completion,
      sum(t.cost_total) AS cost
    FROM traces t
    WHERE t.project_id = ${w.projectRowid} AND t.start_time >= ${w.start}::timestamptz AND t.start_time < ${w.end}::timestamptz
    GROUP BY 1 ORDER BY 1`);

const scoreBucketRow = z.object({ name: z.string(), bucket_us: z.bigint(), mean: z.number(), count: z.number() });
export type ScoreBucketRow = z.infer<typeof scoreBucketRow>;

/**
 * Per annotation name and bucket: the mean score of the annotations (with a score) on the
 * project's spans and traces started in the window, bucketed by their target's start time.
 *
 * It reads the annotations alone, from the index on their target's project and start time
 * (`annotations_scored_by_start`, INCLUDE (name, score): an index-only scan of the window's
 * scores), which the annotations read model keeps from its own record of the targets
 * (projections/annotations/targetStart.ts) instead of a join of every annotation to its span or
 * trace row (BENCHMARKS §18c). The same annotations as that join: span and trace annotations
 * with a score whose target exists, in the project (a span's project is its trace's), started
 * in the window. The project's row id is turned into the uuid that read model knows it by.
 */
export const annotationScoreBuckets = (db: CommonQueryMethods, w: MetricWindow): Promise<readonly ScoreBucketRow[]> =>
  db.any(sql.type(scoreBucketRow)`
    SELECT a.name, (extract(epoch FROM ${binned('a.target_start', w.bucket)}) * 1000000)::bigint AS bucket_us,
      avg(a.score)::float8 AS mean, count(*)::int AS count
    FROM annotations a
    WHERE a.target_project = (SELECT p.project_id FROM projects p WHERE p.id = ${w.projectRowid}) AND a.score IS NOT NULL
      AND a.target_start >= ${w.start}::timestamptz AND a.target_start < ${w.end}::timestamptz
    GROUP BY 1, 2 ORDER BY 1, 2`);

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const rollupSumRow = traceBucketRow.omit({ latency: true });
const hourHistogramRow = z.object({ hour_us: z.bigint(), bins: z.array(z.number()), counts: z.array(z.number()) });

/** The latency range of a bin (traceRollup.ts): bin 0 is [0, 1) ms, bin k is [r^(k-1), r^k). */
const binBounds = (bin: number): [number, number] => (bin === 0 ? [0, 1] : [LATENCY_BIN_RATIO ** (bin - 1), LATENCY_BIN_RATIO ** bin]);

/**
 * Quantiles of a histogram (bins ascending) as percentile_cont computes them on the values: the
 * i-th smallest value is placed within its bin by its rank among the bin's (log scale), and a
 * quantile between two ranks is interpolated linearly, so the result is within a bin of the exact one.
 */
export const histogramQuantiles = (
  bins: readonly { bin: number; count: number; low?: number; high?: number }[],
  probabilities: readonly number[],
): (number | null)[] => {
  const n = bins.reduce((sum, b) => sum + b.count, 0);
  if (n === 0) return probabilities.map(() => null);
  const nth = (i: number): number => {
    let before = 0;
    for (const b of bins) {
      if (i < before + b.count) {
        // The bin's least and greatest value when known (alert windows read from trace rows), else its bounds.
        const [lo, hi] = b.low !== undefined && b.high !== undefined ? [b.low, b.high] : binBounds(b.bin);
        const f = (i - before + 0.5) / b.count;
        return lo === 0 ? hi * f : lo * (hi / lo) ** f;
      }
      before += b.count;
    }
    return binBounds(bins.at(-1)!.bin)[1];
  };
  return probabilities.map((p) => {
    const rank = p * (n - 1);
    const below = Math.floor(rank);
    const low = nth(below);
    return rank === below ? low : low + (rank - below) * (nth(below + 1) - low);
  });
};

/**
 * The trace series of hour or day buckets from the hourly rollup: whole hours of the window from
 * `trace_metric_hours` and `trace_latency_hours`, the partial hours at its ends from the traces.
 */
const rolledUpTraceBuckets = async (db: CommonQueryMethods, w: MetricWindow): Promise<readonly TraceBucketRow[]> => {
  const startMs = Date.parse(w.start);
  const endMs = Date.parse(w.end);
  let from = Math.ceil(startMs / HOUR_MS) * HOUR_MS;
  let to = Math.floor(endMs / HOUR_MS) * HOUR_MS;
  if (from >= to) from = to = endMs; // no whole hour: all of it from the traces
  const [a, b] = [new Date(from).toISOString(), new Date(to).toISOString()];
  // The two partial hours as two plain ranges (an OR of them would not use the start-time index).
  const edge = (from: string, to: string) =>
    sql.fragment`t.project_id = ${w.projectRowid} AND t.start_time >= ${from}::timestamptz AND t.start_time < ${to}::timestamptz`;
  const [head, tail] = [edge(w.start, a), edge(b, w.end)];
  const hours = sql.fragment`project_id = ${w.projectRowid} AND hour >= ${a}::timestamptz AND hour < ${b}::timestamptz`;
  // Day buckets take the whole days' histograms from the day level, the hours around them from the hours'.
  let dayFrom = w.bucket === 'day' ? Math.ceil(from / DAY_MS) * DAY_MS : to;
  let dayTo = w.bucket === 'day' ? Math.floor(to / DAY_MS) * DAY_MS : to;
  if (dayFrom >= dayTo) dayFrom = dayTo = to;
  const [dA, dB] = [new Date(dayFrom).toISOString(), new Date(dayTo).toISOString()];
  const days = sql.fragment`project_id = ${w.projectRowid} AND day >= ${dA}::timestamptz AND day < ${dB}::timestamptz`;
  const hoursAroundDays = sql.fragment`project_id = ${w.projectRowid} AND (
    (hour >= ${a}::timestamptz AND hour < ${dA}::timestamptz) OR (hour >= ${dB}::timestamptz AND hour < ${b}::timestamptz))`;
  const bucketUs = sql.fragment`(extract(epoch FROM ${binned('at', w.bucket)}) * 1000000)::bigint`;
  const [sums, hourly] = await Promise.all([
    db.any(sql.type(rollupSumRow)`
      WITH parts AS (
        SELECT hour AS at, trace_count AS n, error_count AS e, token_count_prompt AS tp, token_count_completion AS tc, cost_total AS cost, cost_count AS cn
        FROM trace_metric_hours WHERE ${hours}
        UNION ALL
        SELECT t.start_time, 1, (t.error_count > 0)::int, t.token_count_prompt::numeric, t.token_count_completion::numeric,
          coalesce(t.cost_total::numeric, 0), (t.cost_total IS NOT NULL)::int
        FROM traces t WHERE ${head}
        UNION ALL
        SELECT t.start_time, 1, (t.error_count > 0)::int, t.token_count_prompt::numeric, t.token_count_completion::numeric,
          coalesce(t.cost_total::numeric, 0), (t.cost_total IS NOT NULL)::int
        FROM traces t WHERE ${tail}
      )
      SELECT ${bucketUs} AS bucket_us, sum(n)::int AS trace_count, sum(e)::int AS error_count,
        sum(tp)::float8 AS token_count_prompt, sum(tc)::float8 AS token_count_completion,
        CASE WHEN sum(cn) > 0 THEN sum(cost)::float8 END AS cost
      FROM parts GROUP BY 1 ORDER BY 1`),
    // Each whole day's (day buckets) or hour's histogram as two arrays, in the index's order (no
    // sort, no hash of every bin): merged into the buckets below. The partial hours' come from their traces.
    db.any(sql.type(hourHistogramRow)`
      SELECT (extract(epoch FROM day) * 1000000)::bigint AS hour_us, array_agg(bin::int ORDER BY bin) AS bins, array_agg(count ORDER BY bin) AS counts
      FROM trace_latency_days WHERE ${days} GROUP BY day
      UNION ALL
      SELECT (extract(epoch FROM hour) * 1000000)::bigint AS hour_us, array_agg(bin::int ORDER BY bin) AS bins, array_agg(count ORDER BY bin) AS counts
      FROM trace_latency_hours WHERE ${hoursAroundDays} GROUP BY hour
      UNION ALL
      SELECT hour_us, array_agg(bin ORDER BY bin), array_agg(count ORDER BY bin) FROM (
        SELECT (extract(epoch FROM ${hourOf(sql.fragment`t.start_time`)}) * 1000000)::bigint AS hour_us, ${latencyBin}::int AS bin, count(*)::int AS count
        FROM traces t WHERE (${head}) OR (${tail}) GROUP BY 1, 2
      ) edges GROUP BY hour_us`),
  ]);
  const bucketWidthUs = BigInt(BUCKETS[w.bucket]) * 1_000_000n;
  const histograms = new Map<bigint, Map<number, number>>();
  for (const h of hourly) {
    const bucket = h.hour_us - (((h.hour_us % bucketWidthUs) + bucketWidthUs) % bucketWidthUs);
    const merged = histograms.get(bucket) ?? new Map<number, number>();
    for (const [i, bin] of h.bins.entries()) merged.set(bin, (merged.get(bin) ?? 0) + h.counts[i]!);
    histograms.set(bucket, merged);
  }
  return sums.map((row) => ({
    ...row,
    latency: histogramQuantiles(
      [...(histograms.get(row.bucket_us) ?? [])].sort(([a], [b]) => a - b).map(([bin, count]) => ({ bin, count })),
      [0.5, 0.95, 0.99],
    ),
  }));
};
