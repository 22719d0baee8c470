/** What one evaluation concluded: the fields of the annotation it becomes. */
export type Verdict = { readonly label: string | null; readonly score: number | null; readonly explanation: string | null };

const MAX_LABEL = 200;
const MAX_EXPLANATION = 10_000;

/**
 * What an evaluator returned, read as a verdict: a number is a score, a boolean a pass (1/0 with
 * the label `true`/`false`), a string a label, an object its `score`, `label` and `explanation`.
 * Anything else (null, an array, NaN, an object with none of them) is null: no verdict.
 */
export const verdictOf = (value: unknown): Verdict | null => {
  if (typeof value === 'number') return Number.isFinite(value) ? { label: null, score: value, explanation: null } : null;
  if (typeof value === 'boolean') return { label: String(value), score: value ? 1 : 0, explanation: null };
  if (typeof value === 'string') return { label: value.slice(0, MAX_LABEL), score: null, explanation: null };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  const score = typeof o.score === 'number' && Number.isFinite(o.score) ? o.score : typeof o.score === 'boolean' ? Number(o.score) : null;
  const label = typeof o.label === 'string' ? o.label.slice(0, MAX_LABEL) : typeof o.label === 'boolean' ? String(o.label) : null;
  const explanation = typeof o.explanation === 'string' ? o.explanation.slice(0, MAX_EXPLANATION) : null;
  return score === null && label === null ? null : { label, score, explanation };
};
