import { Arg, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { annotationScoreBuckets, BUCKETS, type Bucket, bucketFor, traceMetricBuckets } from '../../../projections/metrics/metricQueries.ts';
import { isoMicros } from '../dateTimeScalar.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { ProjectMetrics } from '../types/metricTypes.ts';
import { Project, TimeRange } from '../types/tracingTypes.ts';

/** A range longer than this would be thousands of day buckets: refused rather than drawn. */
const MAX_RANGE_MS = 366 * 86_400_000;

@Resolver(() => Project)
export class ProjectMetricsResolver {
  @FieldResolver(() => ProjectMetrics, {
    description:
      'Traces, errors, latency p50/p95/p99, tokens, cost and mean annotation scores per bucket over the range (bucket: minute, hour or day; by default the finest that fits)',
  })
  async metrics(
    @Root() project: Project,
    @Ctx() ctx: GraphqlContext,
    @Arg('timeRange', () => TimeRange) timeRange: TimeRange,
    @Arg('bucket', () => String, { nullable: true }) bucket?: string | null,
  ): Promise<ProjectMetrics> {
    if (!timeRange.start || !timeRange.end) throw gqlError('invalid_time_range', 'Argument "timeRange" needs both start and end', 422);
    const startMs = Date.parse(timeRange.start);
    const endMs = Date.parse(timeRange.end);
    if (!(endMs > startMs)) throw gqlError('invalid_time_range', 'Argument "timeRange": end must be after start', 422);
    if (endMs - startMs > MAX_RANGE_MS) throw gqlError('invalid_time_range', 'Argument "timeRange" may span at most 366 days', 422);
    if (bucket != null && !Object.hasOwn(BUCKETS, bucket))
      throw gqlError('invalid_bucket', 'Argument "bucket" must be minute, hour or day', 422);
    const chosen = (bucket as Bucket | null | undefined) ?? bucketFor(startMs, endMs);
    if ((endMs - startMs) / 1000 / BUCKETS[chosen] > 2000)
      throw gqlError('invalid_bucket', `Argument "bucket": ${chosen} buckets over this range are more than 2,000 points`, 422);
    const window = {
      projectRowid: project.rowid,
      start: new Date(startMs).toISOString(),
      end: new Date(endMs).toISOString(),
      bucket: chosen,
    };
    const [traces, scores] = await Promise.all([traceMetricBuckets(ctx.deps.pool, window), annotationScoreBuckets(ctx.deps.pool, window)]);
    const series = new Map<string, { time: string; mean: number; count: number }[]>();
    for (const s of scores) {
      const points = series.get(s.name) ?? [];
      points.push({ time: isoMicros(s.bucket_us), mean: s.mean, count: s.count });
      series.set(s.name, points);
    }
    return {
      bucket: chosen,
      start: window.start,
      end: window.end,
      points: traces.map((t) => ({
        time: isoMicros(t.bucket_us),
        traceCount: t.trace_count,
        errorCount: t.error_count,
        errorRate: t.trace_count === 0 ? 0 : t.error_count / t.trace_count,
        latencyMsP50: t.latency[0] ?? null,
        latencyMsP95: t.latency[1] ?? null,
        latencyMsP99: t.latency[2] ?? null,
        tokenCountPrompt: t.token_count_prompt,
        tokenCountCompletion: t.token_count_completion,
        cost: t.cost,
      })),
      scores: [...series].map(([name, points]) => ({ name, points })),
    };
  }
}
