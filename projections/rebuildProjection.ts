import { randomBytes } from 'node:crypto';
import { sql, type DatabasePool, type DatabaseTransactionConnection } from 'slonik';
import type { EventStore, Position } from '../domain/eventstore/types.ts';
import { START } from '../domain/eventstore/types.ts';
import { rawSql, runMigrationSql } from './migrate.ts';
import type { Projection } from './projection.ts';
import { applyBatch, ensureCheckpoints } from './projectionRunner.ts';

export type RebuildProgress = { readonly projection: string; readonly applied: number; readonly phase: 'replaying' | 'swapping' | 'done' };

/**
 * Replays the whole log into fresh tables in a scratch schema while the live tables keep serving,
 * then swaps them in: the last stretch and the swap run under the live checkpoint's row lock, so
 * the live runner neither applies events in between nor sees half-swapped tables.
 */
export const rebuildProjection = async (
  pool: DatabasePool,
  store: EventStore,
  projection: Projection,
  options: {
    /** The same log read inside a transaction (Postgres log); without it the store is used as is. */
    readonly storeInTransaction?: (tx: DatabaseTransactionConnection) => EventStore;
    readonly onProgress?: (p: RebuildProgress) => void;
    readonly batchSize?: number;
  } = {},
): Promise<{ applied: number }> => {
  const onProgress = options.onProgress ?? (() => undefined);
  const batchSize = options.batchSize ?? 50;
  const schema = `rebuild_${projection.name.replace(/[^a-z0-9_]/gi, '_')}_${randomBytes(4).toString('hex')}`.toLowerCase();
  const scratch = { ...projection, name: `${projection.name}@${schema}` };
  const inScratch = async <T>(tx: DatabaseTransactionConnection, work: () => Promise<T>): Promise<T> => {
    await tx.query(rawSql(`SET LOCAL search_path TO ${schema}, public`));
    return work();
  };
  await pool.query(rawSql(`CREATE SCHEMA ${schema}`));
  try {
    await pool.transaction((tx) =>
      inScratch(tx, async () => {
        for (const m of projection.migrations) await runMigrationSql(tx, m);
      }),
    );
    // The scratch copy keeps its own checkpoint row so applyBatch's fencing works unchanged.
    await ensureCheckpoints(pool, [scratch.name]);
    let position: Position = START;
    let applied = 0;
    const replay = async (tx: DatabaseTransactionConnection | null) => {
      const source = tx && options.storeInTransaction ? options.storeInTransaction(tx) : store;
      for (;;) {
        const events = await source.readAll(position, batchSize);
        if (events.length === 0) return;
        const run = (t: DatabaseTransactionConnection) => inScratch(t, () => applyBatch(t, [scratch], events));
        if (tx) await run(tx);
        else await pool.transaction(run);
        position = events[events.length - 1]!.position;
        applied += events.length;
        onProgress({ projection: projection.name, applied, phase: 'replaying' });
      }
    };
    await replay(null);
    onProgress({ projection: projection.name, applied, phase: 'swapping' });
    await ensureCheckpoints(pool, [projection.name]);
    await pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`SELECT 1 FROM projection_checkpoints WHERE name = ${projection.name} FOR UPDATE`);
      await replay(tx);
      await tx.query(sql.unsafe`SET LOCAL search_path TO public`);
      for (const table of projection.tables) {
        await tx.query(rawSql(`DROP TABLE IF EXISTS public.${table} CASCADE`));
      }
      for (const table of projection.tables) {
        await tx.query(rawSql(`ALTER TABLE ${schema}.${table} SET SCHEMA public`));
      }
      await tx.query(sql.unsafe`
        UPDATE projection_checkpoints SET tx = ${position.tx}, seq = ${position.seq}, updated_at = now()
        WHERE name = ${projection.name}`);
      await tx.query(sql.unsafe`DELETE FROM projection_checkpoints WHERE name = ${scratch.name}`);
      await tx.query(rawSql(`DROP SCHEMA ${schema} CASCADE`));
    });
    onProgress({ projection: projection.name, applied, phase: 'done' });
    return { applied };
  } catch (error) {
    await pool.query(rawSql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).catch(() => undefined);
    await pool.query(sql.unsafe`DELETE FROM projection_checkpoints WHERE name = ${scratch.name}`).catch(() => undefined);
    throw error;
  }
};
