import type { ModelPrice, TokenType } from './tokenPrice.ts';
import type { TokenUsage } from './tokenUsage.ts';

/** USD, split as the REST `cost` object is. */
export type Cost = { readonly prompt: number; readonly completion: number; readonly total: number };

/**
 * The cost of one LLM call at these prices. A part of the prompt (cache read, cache write, audio)
 * or of the completion (audio) that has a price of its own is billed at it and taken out of its
 * total; the rest of the total is billed at the `input` / `output` price (0 when the model has
 * none). Above a price's prompt-size threshold (the call's prompt tokens), its higher price applies.
 */
export const spanCost = (price: ModelPrice, usage: TokenUsage): Cost => {
  const perToken = new Map<TokenType, number>();
  for (const p of price.prices) {
    const above = p.threshold !== null && usage.prompt > p.threshold.promptTokens;
    perToken.set(p.tokenType, above ? p.threshold!.usdPerToken : p.usdPerToken);
  }
  const part = (type: TokenType, tokens: number) => (perToken.has(type) ? Math.max(0, tokens) : 0);
  const cacheRead = part('cache_read', usage.cacheRead);
  const cacheWrite = part('cache_write', usage.cacheWrite);
  const audioPrompt = part('audio_prompt', usage.audioPrompt);
  const audioCompletion = part('audio_completion', usage.audioCompletion);
  const at = (type: TokenType, tokens: number) => tokens * (perToken.get(type) ?? 0);
  const prompt =
    at('input', Math.max(0, usage.prompt - cacheRead - cacheWrite - audioPrompt)) +
    at('cache_read', cacheRead) +
    at('cache_write', cacheWrite) +
    at('audio_prompt', audioPrompt);
  const completion = at('output', Math.max(0, usage.completion - audioCompletion)) + at('audio_completion', audioCompletion);
  return { prompt, completion, total: prompt + completion };
};
