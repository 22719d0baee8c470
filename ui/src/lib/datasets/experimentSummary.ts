import type { ExperimentRunRecord } from './datasetsApi.ts';

/**
 * One experiment at a glance, from its runs: how many ran and failed, their mean latency, the
 * tokens their traces used, and per evaluator the mean score and, for evaluators that give labels,
 * the share that passed.
 */

export type EvaluatorSummary = {
  /** Mean over the runs' scores; null when the evaluator gave none. */
  readonly meanScore: number | null;
  /** Share of labelled results that passed; null when the evaluator gave no label. */
  readonly passRate: number | null;
  readonly count: number;
};

export type ExperimentSummary = {
  readonly runs: number;
  readonly errors: number;
  readonly meanLatencyMs: number | null;
  /** Prompt plus completion tokens of the runs' traces; null until a trace reports any. */
  readonly tokens: number | null;
  readonly evaluators: Readonly<Record<string, EvaluatorSummary>>;
};

/**
 * Labels that mean "passed" for evaluators that label rather than score (Phoenix's built-in ones
 * say correct/incorrect, relevant/unrelated, factual/hallucinated, ...). A label outside the list
 * counts as passing only when its result also scores above 0.
 */
const PASSING = new Set([
  'pass',
  'passed',
  'correct',
  'true',
  'yes',
  'good',
  'relevant',
  'factual',
  'ok',
  'success',
  'helpful',
  'grounded',
]);

const mean = (values: readonly number[]): number | null => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length);

const passed = (label: string, score: number | null): boolean =>
  PASSING.has(label.trim().toLowerCase()) ||
  (score !== null && score > 0 && !/^(fail|failed|incorrect|false|no|bad|unrelated|irrelevant|hallucinated)$/i.test(label.trim()));

export const summarizeExperiment = (runs: readonly ExperimentRunRecord[]): ExperimentSummary => {
  const results = new Map<string, { scores: number[]; labels: boolean[]; count: number }>();
  for (const run of runs) {
    for (const a of run.annotations) {
      if (a.error !== null) continue;
      const entry = results.get(a.name) ?? { scores: [], labels: [], count: 0 };
      entry.count += 1;
      if (typeof a.score === 'number') entry.scores.push(a.score);
      if (typeof a.label === 'string' && a.label !== '') entry.labels.push(passed(a.label, a.score));
      results.set(a.name, entry);
    }
  }
  const tokenCounts = runs.flatMap((r) =>
    r.prompt_token_count == null && r.completion_token_count == null ? [] : [(r.prompt_token_count ?? 0) + (r.completion_token_count ?? 0)],
  );
  return {
    runs: runs.length,
    errors: runs.filter((r) => r.error !== null).length,
    meanLatencyMs: mean(runs.map((r) => r.latency_ms)),
    tokens: tokenCounts.length === 0 ? null : tokenCounts.reduce((a, b) => a + b, 0),
    evaluators: Object.fromEntries(
      [...results].map(([name, r]) => [
        name,
        {
          meanScore: mean(r.scores),
          passRate: r.labels.length === 0 ? null : r.labels.filter(Boolean).length / r.labels.length,
          count: r.count,
        },
      ]),
    ),
  };
};
