import { formatLatency, formatPercent, formatUsd } from '../format.ts';

/** A rule's value as its metric reads: a rate in percent, a latency in ms or s, a cost in dollars. */
export const metricValueText = (metric: string, value: number | null): string => {
  if (value === null) return '–';
  if (metric === 'error_rate') return formatPercent(value);
  if (metric.startsWith('latency_')) return formatLatency(value);
  if (metric === 'cost') return formatUsd(value);
  return Number.isInteger(value) ? String(value) : value.toPrecision(4);
};
