import type { DomainEvent } from '../decider.ts';
import type { TokenPrice } from './tokenPrice.ts';

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
