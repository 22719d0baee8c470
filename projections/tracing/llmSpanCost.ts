import type { PriceBook } from '../../domain/prices/priceBook.ts';
import { spanCost, type Cost } from '../../domain/prices/spanCost.ts';
import { tokenUsage } from '../../domain/prices/tokenUsage.ts';
import type { Attributes } from '../../domain/tracing/attributes.ts';

const text = (a: Attributes, key: string): string | null => {
  const v = Object.hasOwn(a, key) ? a[key] : undefined;
  return v !== null && v !== undefined && 'str' in v && v.str !== '' ? v.str : null;
};

/** What the `spans` row keeps to price an LLM span: its model, provider and cost (null: no price for it, or not an LLM span). */
export type LlmSpanCost = { readonly modelName: string | null; readonly provider: string | null; readonly cost: Cost | null };

/**
 * An LLM span's cost at the price in force at its start (`startIso`), from its token counts
 * (`llm.model_name`; the provider is `llm.provider`, else `llm.system`). Other kinds cost nothing
 * and name no model, as they carry no token counts of their own (llmTokenCounts.ts).
 */
export const llmSpanCost = (book: PriceBook, spanKind: string, attributes: Attributes, startIso: string): LlmSpanCost => {
  if (spanKind !== 'LLM') return { modelName: null, provider: null, cost: null };
  const modelName = text(attributes, 'llm.model_name');
  const provider = text(attributes, 'llm.provider') ?? text(attributes, 'llm.system');
  const price = book.priceAt(modelName, provider, startIso);
  return { modelName, provider, cost: price === null ? null : spanCost(price, tokenUsage(attributes)) };
};
