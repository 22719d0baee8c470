import type { ProjectMetrics } from './metricsApi.ts';

const BUCKET_SECONDS = { minute: 60, hour: 3600, day: 86_400 } as const;

/** Columns for uPlot: x in Unix seconds (every bucket of the range, so gaps show), then one array per series. */
export type Columns = { readonly x: number[]; readonly series: Record<string, (number | null)[]> };

/**
 * The server's buckets (only those with traces) laid on the full grid of the range: counts are
 * 0 where nothing happened, rates, latencies, costs and scores are null there (a gap, not a zero).
 */
export const metricColumns = (m: ProjectMetrics): Columns => {
  const step = BUCKET_SECONDS[m.bucket];
  const first = Math.floor(Date.parse(m.start) / 1000 / step) * step;
  const end = Date.parse(m.end) / 1000;
  const x: number[] = [];
  for (let t = first; t < end; t += step) x.push(t);
  const at = new Map(x.map((t, i) => [t, i]));
  const column = (fill: number | null) => x.map(() => fill);
  const series: Record<string, (number | null)[]> = {
    traces: column(0),
    errorRate: column(null),
    p50: column(null),
    p95: column(null),
    p99: column(null),
    prompt: column(0),
    completion: column(0),
    cost: column(null),
  };
  for (const p of m.points) {
    const i = at.get(Math.floor(Date.parse(p.time) / 1000));
    if (i === undefined) continue;
    series.traces![i] = p.traceCount;
    series.errorRate![i] = p.errorRate * 100;
    series.p50![i] = p.latencyMsP50;
    series.p95![i] = p.latencyMsP95;
    series.p99![i] = p.latencyMsP99;
    series.prompt![i] = p.tokenCountPrompt;
    series.completion![i] = p.tokenCountCompletion;
    series.cost![i] = p.cost;
  }
  for (const s of m.scores) {
    const col = column(null);
    for (const p of s.points) {
      const i = at.get(Math.floor(Date.parse(p.time) / 1000));
      if (i !== undefined) col[i] = p.mean;
    }
    series[`score:${s.name}`] = col;
  }
  return { x, series };
};

/** The closed range the metrics page draws: a preset's start (a year back for "all time") up to now, or a custom range. */
export const metricsRange = (range: { start: string | null; end: string | null }, now = Date.now()): { start: string; end: string } => ({
  start: range.start ?? new Date(now - 365 * 86_400_000).toISOString(),
  end: range.end ?? new Date(now).toISOString(),
});
