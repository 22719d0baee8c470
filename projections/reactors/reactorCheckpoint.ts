import { sql, type CommonQueryMethods, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { Position } from '../../domain/eventstore/types.ts';

/**
 * A reactor's row in `reactor_checkpoints`: where it has reacted up to, when its schedule last
 * ran, and the error it is failing with (shown by `loupe projections status` and /readyz). The
 * checkpoint only moves forward, by compare-and-set.
 */
export const reactorCheckpointRow = z.object({
  tx: z.bigint(),
  seq: z.bigint(),
  // timestamptz arrives as epoch milliseconds (the pool's type parsers)
  scheduled_at: z.number().nullable(),
  error: z.string().nullable(),
});
export type ReactorCheckpointRow = z.infer<typeof reactorCheckpointRow>;

export const ensureReactorCheckpoints = async (db: CommonQueryMethods, names: readonly string[]): Promise<void> => {
  for (const name of names)
    await db.query(sql.unsafe`INSERT INTO reactor_checkpoints (name) VALUES (${name}) ON CONFLICT (name) DO NOTHING`);
};

export const readReactorCheckpoint = (db: CommonQueryMethods, name: string): Promise<ReactorCheckpointRow> =>
  db.one(sql.type(reactorCheckpointRow)`SELECT tx, seq, scheduled_at, error FROM reactor_checkpoints WHERE name = ${name}`);

/**
 * Moves the checkpoint from `from` to `to` and clears the error, or returns false without moving
 * it: another owner that moved it meanwhile (a takeover while this one still ran) has done the
 * same work, and its checkpoint stands. Locks the row until `tx` ends.
 */
export const moveReactorCheckpoint = async (
  tx: DatabaseTransactionConnection,
  name: string,
  from: Position,
  to: Position,
): Promise<boolean> => {
  const mine = await tx.maybeOne(sql.unsafe`
    SELECT 1 FROM reactor_checkpoints WHERE name = ${name} AND tx = ${from.tx} AND seq = ${from.seq} FOR UPDATE`);
  if (!mine) return false;
  await tx.query(sql.unsafe`
    UPDATE reactor_checkpoints SET tx = ${to.tx}, seq = ${to.seq}, error = NULL, error_since = NULL, updated_at = now()
    WHERE name = ${name}`);
  return true;
};

export const markReactorScheduled = async (db: CommonQueryMethods, name: string, at: Date): Promise<void> => {
  await db.query(sql.unsafe`
    UPDATE reactor_checkpoints SET scheduled_at = ${at.toISOString()}, error = NULL, error_since = NULL, updated_at = now()
    WHERE name = ${name}`);
};

/** The reactor's error row: the reason (described, never the error object's data), since when. */
export const recordReactorError = async (db: CommonQueryMethods, name: string, reason: string): Promise<void> => {
  await db.query(sql.unsafe`
    UPDATE reactor_checkpoints SET error = ${reason}, error_since = coalesce(error_since, now()), updated_at = now()
    WHERE name = ${name}`);
};
