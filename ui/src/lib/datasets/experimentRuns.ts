import type { ExperimentRunRecord } from './datasetsApi.ts';

/**
 * One experiment's runs grouped by example (in the order the runs came), each example's runs by
 * repetition, and the experiment's totals: mean score per evaluator, mean latency, tokens.
 */

export type ExampleRuns = {
  readonly exampleId: string;
  readonly input: unknown;
  readonly referenceOutput: unknown;
  readonly runs: readonly ExperimentRunRecord[];
};

export type ExperimentSummary = {
  readonly evaluators: readonly string[];
  readonly meanScores: Readonly<Record<string, number | null>>;
  readonly meanLatencyMs: number | null;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** USD over the runs' traces; null when none is priced. */
  readonly cost: number | null;
  readonly errors: number;
};

const mean = (values: readonly number[]): number | null => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length);

export const runsByExample = (runs: readonly ExperimentRunRecord[]): ExampleRuns[] => {
  const grouped = new Map<string, ExperimentRunRecord[]>();
  for (const run of runs) grouped.set(run.example_id, [...(grouped.get(run.example_id) ?? []), run]);
  return [...grouped].map(([exampleId, own]) => ({
    exampleId,
    input: own[0]!.input,
    referenceOutput: own[0]!.reference_output,
    runs: [...own].sort((a, b) => a.repetition_number - b.repetition_number),
  }));
};

export const summarise = (runs: readonly ExperimentRunRecord[]): ExperimentSummary => {
  const evaluators = [...new Set(runs.flatMap((r) => r.annotations.map((a) => a.name)))].sort();
  return {
    evaluators,
    meanScores: Object.fromEntries(
      evaluators.map((name) => [
        name,
        mean(runs.flatMap((r) => r.annotations.filter((a) => a.name === name && typeof a.score === 'number').map((a) => a.score!))),
      ]),
    ),
    meanLatencyMs: mean(runs.map((r) => r.latency_ms)),
    promptTokens: runs.reduce((n, r) => n + (r.prompt_token_count ?? 0), 0),
    completionTokens: runs.reduce((n, r) => n + (r.completion_token_count ?? 0), 0),
    cost: runs.some((r) => r.cost) ? runs.reduce((n, r) => n + (r.cost?.total ?? 0), 0) : null,
    errors: runs.filter((r) => r.error !== null).length,
  };
};
