import type { Attributes, AttributeValue } from '../../domain/tracing/attributes.ts';

/**
 * A count as the `bigint` columns can hold it, whatever was sent (int64 max, 1e30,
 * "99999999999999999999"): clamped to ±(2^53 - 1), the integers a JSON number carries exactly
 * on its way to Postgres. Trace and session sums are clamped again in SQL (recompute.ts).
 */
const clamp = (n: number): number =>
  Number.isNaN(n) ? 0 : Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Math.trunc(n)));

const asCount = (v: AttributeValue | undefined): number => {
  if (v === null || v === undefined) return 0;
  if ('int' in v) return clamp(Number(v.int));
  if ('float' in v) return typeof v.float === 'number' ? clamp(v.float) : 0;
  if ('str' in v) return /^\s*-?\d+\s*$/.test(v.str) ? clamp(Number(v.str)) : 0;
  return 0;
};

const attr = (a: Attributes, key: string) => (Object.hasOwn(a, key) ? a[key] : undefined);

/**
 * A span's own token counts, as Phoenix keeps them: only LLM spans have them (0 when the
 * attribute is missing or unusable); other kinds have none, so trace and session sums count
 * each LLM call once, never an ancestor's roll-up as well.
 */
export const llmTokenCounts = (spanKind: string, attributes: Attributes): { prompt: number | null; completion: number | null } =>
  spanKind === 'LLM'
    ? { prompt: asCount(attr(attributes, 'llm.token_count.prompt')), completion: asCount(attr(attributes, 'llm.token_count.completion')) }
    : { prompt: null, completion: null };
