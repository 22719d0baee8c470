import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import type { PriceCommand, SetModelPrice } from './commands.ts';
import type { PriceEvent } from './events.ts';
import { checkStorableTime, storableTime } from '../base/storableTime.ts';
import { compileNamePattern, MAX_PATTERN_LENGTH } from './namePattern.ts';
import { TOKEN_TYPES } from './tokenPrice.ts';

const MAX_NAME = 200;

/** Every admin price version: model → its effective dates (ISO, as stored). */
export type PriceState = ReadonlyMap<string, ReadonlySet<string>>;

const invalid = (code: string, message: string) => new DomainError(code, message, 'invalid');

/** A price of 1 USD per token or more is a typo for a price per million. */
const isPerToken = (n: number) => Number.isFinite(n) && n >= 0 && n < 1;

const checkSet = (c: SetModelPrice): SetModelPrice => {
  const model = c.model.trim();
  if (model === '' || model.length > MAX_NAME) throw invalid('model_invalid', `model must be 1 to ${MAX_NAME} characters`);
  if (c.namePattern === '' || c.namePattern.length > MAX_PATTERN_LENGTH)
    throw invalid('name_pattern_invalid', `name_pattern must be 1 to ${MAX_PATTERN_LENGTH} characters`);
  try {
    compileNamePattern(c.namePattern);
  } catch (error) {
    throw invalid('name_pattern_invalid', `name_pattern is not a regular expression: ${(error as Error).message}`);
  }
  const provider = c.provider?.trim() || null;
  if (provider !== null && provider.length > MAX_NAME) throw invalid('provider_invalid', `provider must be at most ${MAX_NAME} characters`);
  const effectiveFrom = checkStorableTime('effective_from', c.effectiveFrom, 'effective_from_invalid');
  if (c.prices.length === 0) throw invalid('prices_required', 'at least one token price is required');
  const seen = new Set<string>();
  for (const p of c.prices) {
    if (!TOKEN_TYPES.includes(p.tokenType)) throw invalid('token_type_invalid', `token_type must be one of ${TOKEN_TYPES.join(', ')}`);
    if (seen.has(p.tokenType)) throw invalid('token_type_repeated', `token_type ${p.tokenType} is given twice`);
    seen.add(p.tokenType);
    if (!isPerToken(p.usdPerToken)) throw invalid('price_invalid', 'usd_per_token must be at least 0 and below 1 (USD per token)');
    if (
      p.threshold !== null &&
      (!Number.isSafeInteger(p.threshold.promptTokens) || p.threshold.promptTokens < 0 || !isPerToken(p.threshold.usdPerToken))
    )
      throw invalid('price_invalid', 'a threshold needs prompt_tokens ≥ 0 and usd_per_token at least 0 and below 1');
  }
  return { ...c, model, provider, effectiveFrom };
};

const decide = (c: PriceCommand, state: PriceState): PriceEvent[] => {
  switch (c.type) {
    case 'SetModelPrice': {
      const { model, namePattern, provider, effectiveFrom, prices } = checkSet(c);
      return [{ type: 'ModelPriceSet', data: { model, namePattern, provider, effectiveFrom, prices } }];
    }
    case 'DeleteModelPrice': {
      const effectiveFrom = storableTime(c.effectiveFrom) ?? c.effectiveFrom;
      if (!state.get(c.model)?.has(effectiveFrom))
        throw new DomainError('price_not_found', `no price for ${c.model} from ${c.effectiveFrom}`, 'not_found');
      return [{ type: 'ModelPriceDeleted', data: { model: c.model, effectiveFrom } }];
    }
  }
};

const evolve = (state: PriceState, e: PriceEvent): PriceState => {
  const next = new Map(state);
  const dates = new Set(next.get(e.data.model) ?? []);
  if (e.type === 'ModelPriceSet') dates.add(e.data.effectiveFrom);
  else dates.delete(e.data.effectiveFrom);
  next.set(e.data.model, dates);
  return next;
};

/** The decider of the single `model-prices` stream (PRICE_STREAM). */
export const priceDecider: Decider<PriceState, PriceCommand, PriceEvent> = {
  initialState: () => new Map(),
  evolve,
  decide,
};
