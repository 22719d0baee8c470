import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { priceBook, type PriceBook } from '../../domain/prices/priceBook.ts';
import type { ModelPrice, TokenPrice } from '../../domain/prices/tokenPrice.ts';

/** A row of `model_prices` as both readers take it. */
export const customPriceRow = z.object({
  model: z.string(),
  name_pattern: z.string(),
  provider: z.string().nullable(),
  effective_from: z.string(),
  prices: z.array(z.unknown()),
});

/** The admins' price versions as this read model holds them (`model_prices`), oldest first. */
export const loadCustomPrices = async (db: CommonQueryMethods): Promise<ModelPrice[]> =>
  (
    await db.any(sql.type(customPriceRow)`
      SELECT model, name_pattern, provider, to_json(effective_from)#>>'{}' AS effective_from, prices
      FROM model_prices ORDER BY effective_from, model`)
  ).map(customPrice);

/** A `model_prices` row as the price book takes it. */
export const customPrice = (r: z.infer<typeof customPriceRow>): ModelPrice => ({
  model: r.model,
  namePattern: r.name_pattern,
  provider: r.provider,
  effectiveFrom: r.effective_from,
  prices: r.prices as TokenPrice[],
});

/** The built-in table with the admins' prices over it, as they stand in this read model. */
export const loadPriceBook = async (db: CommonQueryMethods, builtIn: readonly ModelPrice[]): Promise<PriceBook> =>
  priceBook(builtIn, await loadCustomPrices(db));
