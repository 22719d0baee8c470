import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { EventStore, Position, StoredEvent } from '../domain/eventstore/types.ts';

/**
 * Default for the bytes of event data (JSON text as stored) in one projection batch. A
 * SpansIngested event of 2,000 LLM spans is ~10 MB of JSON, and in memory it costs several times
 * that (the text, the parsed objects, the rows built from them): 20 such events were over 1 GB.
 * Measured with 2.5 MB events (512 spans) on Postgres, 100k spans (BENCHMARKS.md §10): 32 MB
 * gave a peak server RSS of 592 MB, 8 MB 443 MB at the same visible rate, 4 MB 394 MB but 21 %
 * fewer spans/s (one or two events per transaction: its fixed costs dominate). Batches of small
 * events (users, projects, annotations) are still bounded by the event count.
 */
export const DEFAULT_BATCH_BYTES = 8 * 1024 * 1024;

const sizeRow = z.object({ bytes: z.number() });

/**
 * Up to `maxEvents` events after `after`, fewer when their data would exceed `maxBytes` together
 * (always at least one, however large). The sizes come first from a cheap query: the size stored
 * with each event (`data_bytes`); an event appended before that column existed is measured with
 * octet_length, which decompresses it, so only the rows within the limit are measured (the
 * subquery limits first). Both reads see the same first events: readAll only reads below the
 * oldest running transaction, where the order no longer changes.
 */
export const readBatch = async (
  db: CommonQueryMethods,
  store: EventStore,
  after: Position,
  maxEvents: number,
  maxBytes: number,
): Promise<StoredEvent[]> => {
  if (!Number.isFinite(maxBytes)) return store.readAll(after, maxEvents);
  const sizes = await db.anyFirst(sql.type(sizeRow)`
    SELECT coalesce(data_bytes, octet_length(data::text))::int AS bytes FROM (
      SELECT data_bytes, data, transaction_id, global_position FROM events
      WHERE (transaction_id, global_position) > (${after.tx.toString()}::xid8, ${after.seq.toString()}::bigint)
        AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY transaction_id, global_position
      LIMIT ${maxEvents}
    ) e ORDER BY transaction_id, global_position`);
  if (sizes.length === 0) return [];
  let count = 0;
  let total = 0;
  for (const bytes of sizes) {
    if (count > 0 && total + bytes > maxBytes) break;
    total += bytes;
    count++;
  }
  return store.readAll(after, count);
};
