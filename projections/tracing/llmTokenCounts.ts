import type { Attributes, AttributeValue } from '../../domain/tracing/attributes.ts';

const asCount = (v: AttributeValue | undefined): number => {
  if (v === null || v === undefined) return 0;
  if ('int' in v) return Number(v.int);
  if ('float' in v) return typeof v.float === 'number' ? Math.trunc(v.float) : 0;
  if ('str' in v) return /^\s*-?\d+\s*$/.test(v.str) ? Number(v.str) : 0;
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
