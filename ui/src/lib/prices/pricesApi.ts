import { http } from '../api/http.ts';

export type TokenPriceRow = {
  readonly token_type: string;
  readonly usd_per_token: number;
  readonly threshold: { readonly prompt_tokens: number; readonly usd_per_token: number } | null;
};

export type PriceRow = {
  readonly model: string;
  readonly name_pattern: string;
  readonly provider: string | null;
  readonly effective_from: string | null;
  readonly source: 'built_in' | 'custom';
  readonly prices: readonly TokenPriceRow[];
  readonly set_by: string | null;
  readonly set_at: string | null;
};

/** Every price version: the built-in table, then the admins' versions. */
export const fetchPrices = async (signal?: AbortSignal): Promise<PriceRow[]> =>
  (await http<{ data: PriceRow[] }>('/v1/model_prices', { signal })).data;

export type NewPrice = {
  readonly model: string;
  readonly namePattern: string;
  readonly provider: string | null;
  readonly effectiveFrom: string;
  /** USD per million tokens, as price lists quote them. */
  readonly perMillion: Readonly<Record<string, number>>;
};

export const setPrice = (p: NewPrice) =>
  http('/v1/model_prices', {
    method: 'POST',
    json: {
      model: p.model,
      name_pattern: p.namePattern,
      provider: p.provider,
      effective_from: p.effectiveFrom,
      prices: Object.entries(p.perMillion).map(([token_type, usd]) => ({ token_type, usd_per_token: usd / 1_000_000 })),
    },
  });

export const deletePrice = (model: string, effectiveFrom: string) =>
  http(`/v1/model_prices?${new URLSearchParams({ model, effective_from: effectiveFrom })}`, { method: 'DELETE' });
