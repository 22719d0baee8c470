import type { DomainEvent } from '../decider.ts';

/**
 * The token types a price is given for. `audio_prompt` and `audio_completion` are the table's
 * `audio` rows with `is_prompt` true and false.
 */
export const TOKEN_TYPES = ['input', 'output', 'cache_read', 'cache_write', 'audio_prompt', 'audio_completion'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

/** USD per token of one type; above `threshold.promptTokens` prompt tokens, `threshold.usdPerToken`. */
export type TokenPrice = {
  readonly tokenType: TokenType;
  readonly usdPerToken: number;
  readonly threshold: { readonly promptTokens: number; readonly usdPerToken: number } | null;
};

/**
 * An admin's price for a model from `effectiveFrom` on (a new model, or a built-in one overridden;
 * a version with the same model and date replaces that version). Who set it is the event's actor.
 */
export type ModelPriceSet = DomainEvent<
  'ModelPriceSet',
  {
    readonly model: string;
    readonly namePattern: string;
    readonly provider: string | null;
    readonly effectiveFrom: string;
    readonly prices: readonly TokenPrice[];
  }
>;

/** One admin price version taken back, as if never set: spans it priced go back to what was in force before. */
export type ModelPriceDeleted = DomainEvent<'ModelPriceDeleted', { readonly model: string; readonly effectiveFrom: string }>;

export type PriceEvent = ModelPriceSet | ModelPriceDeleted;
