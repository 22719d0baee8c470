import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { Position } from './types.ts';

const eventPosition = z.object({ tx: z.string(), seq: z.bigint() });

/** Where the log holds an event now (by its unique id), or null. */
export const positionOfEvent = async (db: CommonQueryMethods, eventId: string): Promise<Position | null> => {
  const r = await db.maybeOne(sql.type(eventPosition)`
    SELECT transaction_id::text AS tx, global_position AS seq FROM events WHERE event_id = ${eventId}::uuid`);
  return r ? { tx: BigInt(r.tx), seq: r.seq } : null;
};
