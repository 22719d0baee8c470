import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { ModelPrice, TokenPrice, TokenType } from './tokenPrice.ts';

const TABLE = new URL('./model-prices.csv', import.meta.url);

type Row = Record<
  | 'model'
  | 'name_pattern'
  | 'token_type'
  | 'is_prompt'
  | 'usd_per_token'
  | 'threshold_attribute'
  | 'threshold_tokens'
  | 'usd_per_token_above_threshold',
  string
>;

const tokenTypeOf = (row: Row): TokenType => {
  switch (row.token_type) {
    case 'input':
    case 'output':
    case 'cache_read':
    case 'cache_write':
      return row.token_type;
    case 'audio':
      return row.is_prompt === 'true' ? 'audio_prompt' : 'audio_completion';
    default:
      throw new Error(`model-prices.csv: unknown token_type "${row.token_type}" for ${row.model}`);
  }
};

const priceOf = (row: Row): TokenPrice => ({
  tokenType: tokenTypeOf(row),
  usdPerToken: Number(row.usd_per_token),
  threshold:
    row.threshold_tokens === ''
      ? null
      : { promptTokens: Number(row.threshold_tokens), usdPerToken: Number(row.usd_per_token_above_threshold) },
});

const parseTable = (): readonly ModelPrice[] => {
  const rows: Row[] = parse(readFileSync(TABLE), { columns: true, skip_empty_lines: true });
  const models = new Map<string, { namePattern: string; prices: TokenPrice[] }>();
  for (const row of rows) {
    const model = models.get(row.model) ?? { namePattern: row.name_pattern, prices: [] };
    model.prices.push(priceOf(row));
    models.set(row.model, model);
  }
  return Object.freeze(
    [...models].map(([model, { namePattern, prices }]) =>
      Object.freeze({ model, namePattern, provider: null, effectiveFrom: null, prices }),
    ),
  );
};

/** Parsed once per process: the file is part of the code and never changes while it runs (parsing takes ~100 ms). */
let parsed: readonly ModelPrice[] | undefined;

/**
 * The built-in price table (README.md says where it comes from): one version per model, in force
 * since the beginning of time. Immutable.
 */
export const builtInPrices = (): readonly ModelPrice[] => {
  parsed ??= parseTable();
  return parsed;
};

/** The built-in name pattern of a model, or null when the table has none. */
export const builtInPattern = (model: string): string | null => builtInPrices().find((p) => p.model === model)?.namePattern ?? null;
