import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export type ProjectionStatus = {
  readonly name: string;
  readonly position: string;
  /** Events in the log after the checkpoint (exact count). */
  readonly lag: number;
  readonly updatedAt: string | null;
};

/** Each read model's checkpoint and how many visible events it has not applied yet. */
export const projectionStatus = async (db: CommonQueryMethods, names: readonly string[]): Promise<ProjectionStatus[]> => {
  const result: ProjectionStatus[] = [];
  for (const name of names) {
    const row = await db.maybeOne(sql.type(z.object({ tx: z.bigint(), seq: z.bigint(), updated_at: z.number() }))`
      SELECT tx, seq, updated_at FROM projection_checkpoints WHERE name = ${name}`);
    const tx = row?.tx ?? 0n;
    const seq = row?.seq ?? 0n;
    const lag = await db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM events
      WHERE (transaction_id, global_position) > (${tx.toString()}::xid8, ${seq.toString()}::bigint)
        AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())`);
    result.push({ name, position: `${tx}:${seq}`, lag, updatedAt: row ? new Date(row.updated_at).toISOString() : null });
  }
  return result;
};
