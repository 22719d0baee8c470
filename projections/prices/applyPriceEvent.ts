import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import type { PriceEvent } from '../../domain/prices/events.ts';
import { storableTime } from '../../domain/base/storableTime.ts';

/**
 * An admin's price version stored (or taken back), and a cost job queued for the stored spans it
 * may reprice: those from its date on whose model name matches any version of that model (a
 * span can only change price if the model was, or becomes, the best match for it). The job is
 * worked off by the cost reactor; spans inserted from here on are priced with the new version.
 */
export const applyPriceEvent = async (
  tx: DatabaseTransactionConnection,
  e: StoredEvent & PriceEvent,
  builtInPattern: (model: string) => string | null,
): Promise<void> => {
  const { model } = e.data;
  // A date no command accepts today (year 0, say, from before the rule) prices nothing: the
  // version is left out of the read model rather than stopping it (22008 from timestamptz).
  const effectiveFrom = storableTime(e.data.effectiveFrom);
  if (typeof model !== 'string' || effectiveFrom === null) return;
  const before = await tx.anyFirst(sql.type(z.object({ name_pattern: z.string() }))`
    SELECT name_pattern FROM model_prices WHERE model = ${model}`);
  if (e.type === 'ModelPriceSet') {
    const d = e.data;
    await tx.query(sql.unsafe`
      INSERT INTO model_prices (model, effective_from, name_pattern, provider, prices, set_by, set_at)
      VALUES (${model}, ${effectiveFrom}, ${d.namePattern}, ${d.provider}, ${JSON.stringify(d.prices)}::jsonb, ${e.metadata.actor}, ${e.metadata.time})
      ON CONFLICT (model, effective_from) DO UPDATE SET name_pattern = EXCLUDED.name_pattern, provider = EXCLUDED.provider,
        prices = EXCLUDED.prices, set_by = EXCLUDED.set_by, set_at = EXCLUDED.set_at`);
  } else {
    await tx.query(sql.unsafe`DELETE FROM model_prices WHERE model = ${model} AND effective_from = ${effectiveFrom}`);
  }
  const builtIn = builtInPattern(model);
  const patterns = [
    ...new Set([...before, ...(builtIn === null ? [] : [builtIn]), ...(e.type === 'ModelPriceSet' ? [e.data.namePattern] : [])]),
  ];
  await tx.query(sql.unsafe`
    INSERT INTO cost_jobs (event_id, from_time, patterns, queued_at)
    VALUES (${e.id}, ${effectiveFrom}, ${sql.array(patterns, 'text')}, ${e.metadata.time})
    ON CONFLICT (event_id) DO NOTHING`);
};
