import { randomUUID } from 'node:crypto';

export const experimentStream = (experimentId: string): string => `experiment-${experimentId}`;

/** One (experiment, example, repetition): where the rule "one successful run each" is kept. */
export const experimentRunStream = (experimentId: string, exampleId: string, repetition: number): string =>
  `experiment-run-${experimentId}-${exampleId}-${repetition}`;

/** A fresh stream per request: evaluators post concurrently and upserts need no stream order. */
export const experimentEvaluationStream = (): string => `experiment-evaluations-${randomUUID()}`;
