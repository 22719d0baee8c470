import type { AlertCondition, AlertRule, AlertState } from './alertRule.ts';

/** What an evaluation measured: the window's value (null: no data) and, for a regression, the window before it. */
export type Measurement = { readonly value: number | null; readonly baseline: number | null };

/** How far `value` moved from `baseline`, in percent of it (null when there is no baseline to compare with). */
export const changePercent = (value: number, baseline: number): number | null =>
  baseline === 0 ? (value === 0 ? 0 : null) : ((value - baseline) / Math.abs(baseline)) * 100;

/** Whether a measured window breaks the condition; null when it cannot tell (no data). */
export const breaches = (condition: AlertCondition, m: Measurement): boolean | null => {
  if (m.value === null) return null;
  if (condition.kind === 'threshold') {
    const { op, threshold } = condition;
    return op === '>' ? m.value > threshold : op === '>=' ? m.value >= threshold : op === '<' ? m.value < threshold : m.value <= threshold;
  }
  if (m.baseline === null) return null;
  const change = changePercent(m.value, m.baseline);
  // From nothing to something is an unbounded rise: "up" fires, "down" cannot.
  if (change === null) return condition.direction === 'up' && m.value > m.baseline;
  return condition.direction === 'up' ? change > condition.changePercent : change < -condition.changePercent;
};

/**
 * The state a rule is in after an evaluation: FIRING while the condition holds, OK when it does
 * not, and for a window without data what the rule's `no_data` policy says (`OK`, `ALERT` =
 * FIRING, `KEEP` = as before; a rule that never saw data stays NO_DATA). Pure: the evaluator
 * records a transition only when this differs from `previous`.
 */
export const alertVerdict = (rule: Pick<AlertRule, 'condition' | 'noData'>, previous: AlertState, m: Measurement): AlertState => {
  const broken = breaches(rule.condition, m);
  if (broken !== null) return broken ? 'FIRING' : 'OK';
  return rule.noData === 'OK' ? 'OK' : rule.noData === 'ALERT' ? 'FIRING' : previous;
};

/** What a transition tells the destinations: into FIRING fires, out of FIRING resolves, anything else is silent. */
export const notificationOf = (from: AlertState, to: AlertState): 'FIRING' | 'RESOLVED' | null =>
  to === 'FIRING' && from !== 'FIRING' ? 'FIRING' : from === 'FIRING' && to !== 'FIRING' ? 'RESOLVED' : null;
