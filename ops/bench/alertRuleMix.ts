import type { AlertCondition, AlertMetric, AlertRule } from '../../domain/alerts/alertRule.ts';

/**
 * The alert rules the benchmarks run (bench:alerts into the read model, bench:ingest through the
 * API): rule i's metric and window cycle through every trace metric and windows of 1 minute to 1
 * day, one in four a regression against the window before; `distinct` adds i seconds to each window
 * so that no two rules share a measurement (the worst case).
 */
const METRICS: AlertMetric[] = ['error_rate', 'latency_p50', 'latency_p95', 'latency_p99', 'trace_count', 'cost', 'tokens'];
const WINDOWS = [60, 300, 900, 3600, 6 * 3600, 86_400];

export const benchAlertRule = (i: number, distinct: boolean, evaluationIntervalSeconds = 60): AlertRule => {
  const windowSeconds = WINDOWS[i % WINDOWS.length]! + (distinct ? i : 0);
  const condition: AlertCondition =
    i % 4 === 3
      ? { kind: 'regression', baselineWindowSeconds: windowSeconds, changePercent: 50, direction: 'up' }
      : { kind: 'threshold', op: '>', threshold: i % 2 === 0 ? 0.01 : 1e12 };
  return {
    name: `rule ${i}`,
    metric: METRICS[i % METRICS.length]!,
    annotationName: null,
    annotationLabel: null,
    filter: '',
    windowSeconds,
    evaluationIntervalSeconds,
    condition,
    noData: 'OK',
    destinations: [],
  };
};

/** `count` rules of the mix (no two on one window) created on `project` through `POST /v1/projects/{p}/alerts`, eight at a time. */
export const createAlertRules = async (baseUrl: string, project: string, count: number, intervalSeconds: number): Promise<void> => {
  let next = 0;
  const one = async (): Promise<void> => {
    while (next < count) {
      const r = benchAlertRule(next++, true, intervalSeconds);
      const condition =
        r.condition.kind === 'regression'
          ? {
              baseline_window_seconds: r.condition.baselineWindowSeconds,
              change_percent: r.condition.changePercent,
              direction: r.condition.direction,
            }
          : { op: r.condition.op, threshold: r.condition.threshold };
      const response = await fetch(`${baseUrl}/v1/projects/${encodeURIComponent(project)}/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: r.name,
          metric: r.metric,
          window_seconds: r.windowSeconds,
          evaluation_interval_seconds: r.evaluationIntervalSeconds,
          condition,
          no_data: r.noData,
        }),
      });
      // A 503 projection_timeout is a rule stored but not yet listed (a loaded machine): it is created all the same.
      if (response.status === 503 && ((await response.clone().json()) as { code?: string }).code === 'projection_timeout') continue;
      if (response.status !== 201) throw new Error(`POST alert rule → ${response.status}: ${(await response.text()).slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, one));
};
