import type { ExperimentRunRecord } from './datasetsApi.ts';

/**
 * Experiments side by side on the same examples. The first experiment is the baseline: every
 * score of the others is shown with its difference from the baseline's score of the same
 * evaluator on the same example. Repetitions of an example are averaged (scores, latency); the
 * output shown is the first repetition's.
 */

export type Cell = {
  readonly output: unknown;
  readonly error: string | null;
  readonly latencyMs: number;
  readonly scores: Readonly<Record<string, number | null>>;
  readonly repetitions: number;
};

export type CompareRow = {
  readonly exampleId: string;
  readonly input: unknown;
  readonly referenceOutput: unknown;
  /** One per experiment, in the order given; null where that experiment has no run of the example. */
  readonly cells: readonly (Cell | null)[];
};

export type Comparison = {
  readonly evaluators: readonly string[];
  readonly rows: readonly CompareRow[];
  /** Mean score per experiment and evaluator, over the examples it has a score for. */
  readonly means: readonly Readonly<Record<string, number | null>>[];
};

const mean = (values: readonly number[]): number | null => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length);

const cellOf = (runs: readonly ExperimentRunRecord[]): Cell => {
  const sorted = [...runs].sort((a, b) => a.repetition_number - b.repetition_number);
  const names = new Set(sorted.flatMap((r) => r.annotations.map((a) => a.name)));
  const scores: Record<string, number | null> = {};
  for (const name of names) {
    scores[name] = mean(
      sorted.flatMap((r) => r.annotations.filter((a) => a.name === name && typeof a.score === 'number').map((a) => a.score!)),
    );
  }
  const first = sorted[0]!;
  return {
    output: first.output,
    error: sorted.find((r) => r.error !== null)?.error ?? null,
    latencyMs: mean(sorted.map((r) => r.latency_ms)) ?? 0,
    scores,
    repetitions: sorted.length,
  };
};

export const compareExperiments = (experiments: readonly (readonly ExperimentRunRecord[])[]): Comparison => {
  const examples = new Map<string, { input: unknown; referenceOutput: unknown }>();
  const byExample = experiments.map((runs) => {
    const grouped = new Map<string, ExperimentRunRecord[]>();
    for (const run of runs) {
      if (!examples.has(run.example_id)) examples.set(run.example_id, { input: run.input, referenceOutput: run.reference_output });
      grouped.set(run.example_id, [...(grouped.get(run.example_id) ?? []), run]);
    }
    return grouped;
  });
  const rows = [...examples].map(([exampleId, example]) => ({
    exampleId,
    ...example,
    cells: byExample.map((grouped) => {
      const runs = grouped.get(exampleId);
      return runs === undefined ? null : cellOf(runs);
    }),
  }));
  const evaluators = [...new Set(experiments.flatMap((runs) => runs.flatMap((r) => r.annotations.map((a) => a.name))))].sort();
  const means = experiments.map((_, i) =>
    Object.fromEntries(
      evaluators.map((name) => [
        name,
        mean(rows.flatMap((row) => (typeof row.cells[i]?.scores[name] === 'number' ? [row.cells[i]!.scores[name]!] : []))),
      ]),
    ),
  );
  return { evaluators, rows, means };
};

/** "+0.25" / "−0.50" / "±0" (null when either side has no score). */
export const scoreDelta = (score: number | null | undefined, baseline: number | null | undefined): string | null => {
  if (typeof score !== 'number' || typeof baseline !== 'number') return null;
  const d = score - baseline;
  if (Math.abs(d) < 1e-9) return '±0';
  return `${d > 0 ? '+' : '−'}${Math.abs(d).toFixed(2)}`;
};
