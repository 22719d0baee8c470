import type { Attributes } from '../../domain/tracing/attributes.ts';
import { tokenCount } from '../../domain/tracing/tokenCount.ts';

/**
 * A span's own token counts, as Phoenix keeps them: only LLM spans have them (0 when the
 * attribute is missing or unusable); other kinds have none, so trace and session sums count
 * each LLM call once, never an ancestor's roll-up as well. Trace and session sums are clamped
 * again in SQL (recompute.ts).
 */
export const llmTokenCounts = (spanKind: string, attributes: Attributes): { prompt: number | null; completion: number | null } =>
  spanKind === 'LLM'
    ? { prompt: tokenCount(attributes, 'llm.token_count.prompt'), completion: tokenCount(attributes, 'llm.token_count.completion') }
    : { prompt: null, completion: null };
