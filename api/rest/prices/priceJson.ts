import { z } from 'zod';
import type { TokenPrice } from '../../../domain/prices/tokenPrice.ts';
import { TOKEN_TYPES } from '../../../domain/prices/tokenPrice.ts';
import type { ModelPrice } from '../../../domain/prices/tokenPrice.ts';
import type { CustomPrice } from '../../../projections/prices/priceQueries.ts';
import { withoutNul } from '../../http/rejectNulChars.ts';
import { isoTime } from '../../http/responseSchemas.ts';
import { storableTimeField } from '../../http/storableTimeField.ts';

const tokenPriceJson = (p: TokenPrice) => ({
  token_type: p.tokenType,
  usd_per_token: p.usdPerToken,
  threshold: p.threshold === null ? null : { prompt_tokens: p.threshold.promptTokens, usd_per_token: p.threshold.usdPerToken },
});

const tokenPriceSchema = z.object({
  token_type: z.enum(TOKEN_TYPES),
  usd_per_token: z.number(),
  threshold: z.object({ prompt_tokens: z.number(), usd_per_token: z.number() }).nullable(),
});

/** `priceJson`'s shape, as routes declare it. */
export const priceSchema = z.object({
  model: z.string(),
  name_pattern: z.string(),
  provider: z.string().nullable(),
  effective_from: isoTime.nullable(),
  source: z.enum(['built_in', 'custom']),
  prices: z.array(tokenPriceSchema),
  set_by: z.string().nullable(),
  set_at: isoTime.nullable(),
});

/** One price version on the wire: `source` built_in (in force since the beginning: `effective_from` null) or custom. */
export const priceJson = (p: ModelPrice | CustomPrice) => ({
  model: p.model,
  name_pattern: p.namePattern,
  provider: p.provider,
  effective_from: p.effectiveFrom,
  source: p.effectiveFrom === null ? ('built_in' as const) : ('custom' as const),
  prices: p.prices.map(tokenPriceJson),
  set_by: 'setBy' in p ? p.setBy : null,
  set_at: 'setAt' in p ? p.setAt : null,
});

const text = (max: number) => z.string().max(max).refine(withoutNul, 'must not contain NUL characters');
const usd = z.number().finite().min(0);

/** `POST /v1/model_prices`: a model's prices from a date on. */
export const priceBody = z.object({
  model: text(200).pipe(z.string().trim().min(1)),
  name_pattern: text(500).pipe(z.string().min(1)),
  provider: text(200).nullable().optional(),
  effective_from: storableTimeField,
  prices: z
    .array(
      z.object({
        token_type: z.enum(TOKEN_TYPES),
        usd_per_token: usd,
        threshold: z
          .object({ prompt_tokens: z.number().int().min(0), usd_per_token: usd })
          .nullable()
          .optional(),
      }),
    )
    .min(1)
    .max(TOKEN_TYPES.length),
});

export const tokenPricesOf = (prices: z.infer<typeof priceBody>['prices']): TokenPrice[] =>
  prices.map((p) => ({
    tokenType: p.token_type,
    usdPerToken: p.usd_per_token,
    threshold: p.threshold ? { promptTokens: p.threshold.prompt_tokens, usdPerToken: p.threshold.usd_per_token } : null,
  }));
