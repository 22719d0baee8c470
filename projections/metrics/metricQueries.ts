import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

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
 * trace's extent, as the project cards), LLM token and cost sums. One pass over the project's
 * traces in the window, on the trace rows (their aggregates are kept by the projector), never
 * on spans. Buckets without traces are left out (the chart draws them as gaps).
 */
export const traceMetricBuckets = (db: CommonQueryMethods, w: MetricWindow): Promise<readonly TraceBucketRow[]> =>
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
 */
export const annotationScoreBuckets = (db: CommonQueryMethods, w: MetricWindow): Promise<readonly ScoreBucketRow[]> =>
  db.any(sql.type(scoreBucketRow)`
    WITH scored AS (
      SELECT a.name, s.start_time, a.score FROM annotations a JOIN spans s ON s.span_id = a.target_id
      WHERE a.target = 'span' AND a.score IS NOT NULL AND s.project_id = ${w.projectRowid}
        AND s.start_time >= ${w.start}::timestamptz AND s.start_time < ${w.end}::timestamptz
      UNION ALL
      SELECT a.name, t.start_time, a.score FROM annotations a JOIN traces t ON t.trace_id = a.target_id
      WHERE a.target = 'trace' AND a.score IS NOT NULL AND t.project_id = ${w.projectRowid}
        AND t.start_time >= ${w.start}::timestamptz AND t.start_time < ${w.end}::timestamptz
    )
    SELECT name, (extract(epoch FROM ${binned('start_time', w.bucket)}) * 1000000)::bigint AS bucket_us,
      avg(score)::float8 AS mean, count(*)::int AS count
    FROM scored GROUP BY 1, 2 ORDER BY 1, 2`);
