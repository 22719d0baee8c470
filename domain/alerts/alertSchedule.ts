import type { AlertRule } from './alertRule.ts';

/** Whether a rule is due at `now`: never evaluated, or its interval has passed (less half a second, so a tick that lands just early is not skipped). */
export const isDue = (rule: Pick<AlertRule, 'evaluationIntervalSeconds'>, lastEvaluatedMs: number | null, nowMs: number): boolean =>
  lastEvaluatedMs === null || nowMs - lastEvaluatedMs >= rule.evaluationIntervalSeconds * 1000 - 500;

export type EvaluationWindows = {
  readonly start: string;
  readonly end: string;
  /** A regression's baseline: the window of `baselineWindowSeconds` just before the evaluated one. */
  readonly baseline: { readonly start: string; readonly end: string } | null;
};

/** The window an evaluation at `now` measures, `[now - window, now)`, and for a regression the one before it. */
export const evaluationWindows = (rule: Pick<AlertRule, 'windowSeconds' | 'condition'>, nowMs: number): EvaluationWindows => {
  const startMs = nowMs - rule.windowSeconds * 1000;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    start: iso(startMs),
    end: iso(nowMs),
    baseline:
      rule.condition.kind === 'regression'
        ? { start: iso(startMs - rule.condition.baselineWindowSeconds * 1000), end: iso(startMs) }
        : null,
  };
};
