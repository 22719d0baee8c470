import { sql, type CommonQueryMethods, type DatabasePool, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { Position, StoredEvent } from '../domain/eventstore/types.ts';
import { comparePosition, START } from '../domain/eventstore/types.ts';
import type { Projection } from './projection.ts';
import { STOP_COLUMNS, stopColumns } from './projectionStop.ts';

/**
 * Each read model's row in `projection_checkpoints`: the position it has applied up to, moved in
 * the same transaction as its rows, and the stop it waits at (projectionStop.ts).
 */
const checkpointRow = z.object({ name: z.string(), tx: z.bigint(), seq: z.bigint() });
const stopRow = checkpointRow.extend(stopColumns.shape);
export type CheckpointRow = z.infer<typeof stopRow>;

export const ensureCheckpoints = async (db: DatabasePool | DatabaseTransactionConnection, names: readonly string[]) => {
  for (const name of names) {
    await db.query(sql.unsafe`INSERT INTO projection_checkpoints (name) VALUES (${name}) ON CONFLICT (name) DO NOTHING`);
  }
};

/** The checkpoint and stop columns of the named read models, by name. */
export const readCheckpointRows = async (db: CommonQueryMethods, names: readonly string[]): Promise<Map<string, CheckpointRow>> =>
  new Map(
    (
      await db.any(sql.type(stopRow)`
        SELECT name, tx, seq, ${STOP_COLUMNS} FROM projection_checkpoints WHERE name = ANY(${sql.array(names, 'text')})`)
    ).map((r) => [r.name, r]),
  );

/** Which events a read model leaves out by an operator's decision (`loupe projections skip`). */
export type SkipRule = (projection: string, event: StoredEvent) => boolean;

export const after = (events: readonly StoredEvent[], position: Position) =>
  events.filter((e) => comparePosition(e.position, position) > 0);

export const earliest = (positions: readonly Position[]): Position =>
  positions.reduce((a, b) => (comparePosition(a, b) <= 0 ? a : b), positions[0] ?? START);

/**
 * Applies a batch to the given projections in one transaction with their checkpoints, and returns
 * each one's checkpoint afterwards. The checkpoint rows are locked first and re-read: that fences a
 * second process (or a rebuild swap) that applied the same events meanwhile, so nothing is applied
 * twice and no checkpoint goes back. Skipped events are not applied but the checkpoint passes them.
 */
export const applyBatch = async (
  tx: DatabaseTransactionConnection,
  projections: readonly Projection[],
  events: readonly StoredEvent[],
  skip: SkipRule = () => false,
): Promise<Map<string, Position>> => {
  const rows = await tx.any(sql.type(checkpointRow)`
    SELECT name, tx, seq FROM projection_checkpoints
    WHERE name = ANY(${sql.array(
      projections.map((p) => p.name),
      'text',
    )}) ORDER BY name FOR UPDATE`);
  const checkpoints = new Map(rows.map((r) => [r.name, { tx: r.tx, seq: r.seq }]));
  const reached = new Map<string, Position>();
  for (const projection of projections) {
    const from = checkpoints.get(projection.name) ?? START;
    const fresh = after(events, from);
    reached.set(projection.name, from);
    if (fresh.length === 0) continue;
    const applied = fresh.filter((e) => !skip(projection.name, e));
    if (applied.length > 0) await projection.apply(tx, applied);
    const last = fresh[fresh.length - 1]!.position;
    await tx.query(sql.unsafe`
      INSERT INTO projection_checkpoints (name, tx, seq, updated_at) VALUES (${projection.name}, ${last.tx}, ${last.seq}, now())
      ON CONFLICT (name) DO UPDATE SET tx = excluded.tx, seq = excluded.seq, updated_at = now()`);
    reached.set(projection.name, last);
  }
  return reached;
};
