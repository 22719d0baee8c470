import type { Columns } from '../metrics/metricSeries.ts';
import type { AlertRule } from './alertsApi.ts';

/**
 * The metrics page's column a rule watches, in the units that column is drawn in (an error rate
 * in percent), and the rule's threshold in the same units (null for a regression: its line moves).
 */
export const alertSeries = (rule: AlertRule, columns: Columns): { values: (number | null)[]; threshold: number | null } => {
  const scale = rule.metric === 'error_rate' ? 100 : 1;
  const key: Record<string, string> = {
    error_rate: 'errorRate',
    latency_p50: 'p50',
    latency_p95: 'p95',
    latency_p99: 'p99',
    trace_count: 'traces',
    cost: 'cost',
  };
  let values: (number | null)[];
  if (rule.metric === 'tokens') values = columns.x.map((_, i) => (columns.series.prompt?.[i] ?? 0) + (columns.series.completion?.[i] ?? 0));
  else if (rule.metric === 'annotation_score') values = columns.series[`score:${rule.annotation_name}`] ?? columns.x.map(() => null);
  else values = columns.series[key[rule.metric]!] ?? columns.x.map(() => null);
  return { values, threshold: 'threshold' in rule.condition ? rule.condition.threshold * scale : null };
};
