import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { CONTENT_REMOVED, REMOVALS_STREAM } from './types.ts';

const recordRow = z.object({ stream: z.string(), type: z.string(), erased: z.unknown() });
const listed = z.array(z.object({ id: z.string() }).passthrough());

/**
 * The events a removal record says it erased (its `erased: [{id, stream, position}]`), or null
 * when the event at that global position is not a removal record.
 */
export const removalRecordAt = async (db: CommonQueryMethods, seq: bigint): Promise<{ eventIds: ReadonlySet<string> } | null> => {
  const row = await db.maybeOne(sql.type(recordRow)`
    SELECT stream, type, (data::jsonb) -> 'erased' AS erased FROM events WHERE global_position = ${seq.toString()}::bigint`);
  if (row === null || row.stream !== REMOVALS_STREAM || row.type !== CONTENT_REMOVED) return null;
  const erased = listed.safeParse(row.erased);
  return erased.success ? { eventIds: new Set(erased.data.map((e) => e.id)) } : null;
};
