import type { TokenPrice, TokenType } from './events.ts';

export { TOKEN_TYPES, type TokenPrice, type TokenType } from './events.ts';

/** Token types billed on the prompt side (the rest are completion). */
export const PROMPT_TOKEN_TYPES: ReadonlySet<TokenType> = new Set(['input', 'cache_read', 'cache_write', 'audio_prompt']);

/** One version of a model's price: the names it applies to and its token prices, from `effectiveFrom` on. */
export type ModelPrice = {
  /** The model's name: the key of its history (a later version of the same name replaces it). */
  readonly model: string;
  /** A regular expression a span's model name must match whole (case-insensitive). */
  readonly namePattern: string;
  /** `llm.provider` / `llm.system` this price is for; breaks ties between equally specific patterns. */
  readonly provider: string | null;
  /** ISO time, or null for the built-in table (in force since the beginning of time). */
  readonly effectiveFrom: string | null;
  readonly prices: readonly TokenPrice[];
};
