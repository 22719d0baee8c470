import { gql } from '../api/graphql.ts';

export type MetricPoint = {
  readonly time: string;
  readonly traceCount: number;
  readonly errorCount: number;
  readonly errorRate: number;
  readonly latencyMsP50: number | null;
  readonly latencyMsP95: number | null;
  readonly latencyMsP99: number | null;
  readonly tokenCountPrompt: number;
  readonly tokenCountCompletion: number;
  readonly cost: number | null;
};

export type ProjectMetrics = {
  readonly bucket: 'minute' | 'hour' | 'day';
  readonly start: string;
  readonly end: string;
  readonly points: readonly MetricPoint[];
  readonly scores: readonly { readonly name: string; readonly points: readonly { time: string; mean: number; count: number }[] }[];
};

const METRICS = `
  query ProjectMetrics($id: ID!, $timeRange: TimeRange!) {
    node(id: $id) {
      ... on Project {
        metrics(timeRange: $timeRange) {
          bucket start end
          points { time traceCount errorCount errorRate latencyMsP50 latencyMsP95 latencyMsP99 tokenCountPrompt tokenCountCompletion cost }
          scores { name points { time mean count } }
        }
        unpricedModels(timeRange: $timeRange)
      }
    }
  }`;

/** A project's series over a closed range, in the buckets the server picks to fit it; and the models it could not price. */
export const fetchProjectMetrics = async (
  projectId: string,
  range: { readonly start: string; readonly end: string },
  signal?: AbortSignal,
): Promise<{ metrics: ProjectMetrics; unpricedModels: readonly string[] }> => {
  const reply = await gql<{ node: { metrics: ProjectMetrics; unpricedModels: string[] } }>(
    METRICS,
    { id: projectId, timeRange: range },
    signal,
  );
  return { metrics: reply.node.metrics, unpricedModels: reply.node.unpricedModels };
};
