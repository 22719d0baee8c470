import { randomBytes } from 'node:crypto';
import { sql, type DatabasePool, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { EventStore, Position, StoredEvent } from '../domain/eventstore/types.ts';
import { START } from '../domain/eventstore/types.ts';
import { foldSkipDecisions, PROJECTION_DECISIONS_STREAM } from '../domain/operations/projectionEventSkipped.ts';
import { rawSql, runMigrationSql } from './migrate.ts';
import type { Projection } from './projection.ts';
import { applyBatch, ensureCheckpoints, type SkipRule } from './readModelCheckpoints.ts';
import { describeStop, isConnectionProblem, stopAt, type ProjectionStop } from './projectionStop.ts';
import { DEFAULT_BATCH_BYTES } from './readBatch.ts';
import { cleanRebuildLeftovers, REBUILD_LOCK_CLASS } from './rebuildLeftovers.ts';

export type RebuildProgress = { readonly projection: string; readonly applied: number; readonly phase: 'replaying' | 'swapping' | 'done' };

/** A rebuild met an event the projection cannot apply (the live read model stops there too). */
export class RebuildStoppedError extends Error {
  constructor(readonly stop: ProjectionStop) {
    super(`rebuild of ${stop.projection} failed: ${describeStop(stop)}. Nothing was swapped in; see "loupe projections skip".`);
  }
}

/**
 * Replays the whole log into fresh tables in a scratch schema while the live tables keep serving,
 * then swaps them in: the last stretch and the swap run under the live checkpoint's row lock, so
 * the live runner neither applies events in between nor sees half-swapped tables. Events an
 * operator decided to skip for this projection are left out, exactly as the live runner does.
 * Scratch schemas left by a rebuild that was killed are dropped first.
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
    /**
     * The other partitions of a partitioned read model (projection.ts): their checkpoint rows are
     * locked for the last stretch and the swap too (none of them applies meanwhile), and
     * `afterSwap` lays the rebuilt tables out for them (all at the rebuilt position).
     */
    readonly partitions?: {
      readonly names: readonly string[];
      readonly afterSwap: (tx: DatabaseTransactionConnection, at: Position) => Promise<void>;
    };
  } = {},
): Promise<{ applied: number }> => {
  const onProgress = options.onProgress ?? (() => undefined);
  const batchSize = options.batchSize ?? 50;
  await cleanRebuildLeftovers(pool);
  const schema = `rebuild_${projection.name.replace(/[^a-z0-9_]/gi, '_')}_${randomBytes(4).toString('hex')}`.toLowerCase();
  const scratch = { ...projection, name: `${projection.name}@${schema}` };
  const skipped = foldSkipDecisions(await store.readStream(PROJECTION_DECISIONS_STREAM)).get(projection.name) ?? new Set<string>();
  const skip: SkipRule = (_, event) => skipped.has(event.id);
  const inScratch = async <T>(tx: DatabaseTransactionConnection, work: () => Promise<T>): Promise<T> => {
    await tx.query(rawSql(`SET LOCAL search_path TO ${schema}, public`));
    return work();
  };
  // Held for the whole rebuild on one connection: tells cleanRebuildLeftovers elsewhere this schema is alive.
  return pool.connect(async (lockConnection) => {
    await lockConnection.query(sql.unsafe`SELECT pg_advisory_lock(${REBUILD_LOCK_CLASS}, hashtext(${schema}))`);
    try {
      await pool.query(rawSql(`CREATE SCHEMA ${schema}`));
      await pool.transaction((tx) =>
        inScratch(tx, async () => {
          for (const m of projection.migrations) await runMigrationSql(tx, m);
        }),
      );
      // The scratch copy keeps its own checkpoint row so applyBatch's fencing works unchanged.
      await ensureCheckpoints(pool, [scratch.name]);
      let position: Position = START;
      let applied = 0;
      /** Applies a batch; when it fails, one event at a time, to name the event that fails. */
      const applyNaming = async (
        run: (work: (t: DatabaseTransactionConnection) => Promise<unknown>) => Promise<unknown>,
        events: readonly StoredEvent[],
      ) => {
        try {
          await run((t) => inScratch(t, () => applyBatch(t, [scratch], events, skip)));
          return;
        } catch (error) {
          if (isConnectionProblem(error)) throw error;
        }
        for (const event of events) {
          try {
            await run((t) => inScratch(t, () => applyBatch(t, [scratch], [event], skip)));
          } catch (error) {
            if (isConnectionProblem(error)) throw error;
            throw new RebuildStoppedError(stopAt(projection.name, event, error));
          }
        }
      };
      const replay = async (tx: DatabaseTransactionConnection | null) => {
        const source = tx && options.storeInTransaction ? options.storeInTransaction(tx) : store;
        for (;;) {
          // Bounded by bytes too (DEFAULT_BATCH_BYTES): 50 large span events would be gigabytes.
          const events = await source.readAll(position, batchSize, { maxBytes: DEFAULT_BATCH_BYTES });
          if (events.length === 0) return;
          // Inside the swap transaction a failed batch rolls back to a savepoint only.
          await applyNaming((work) => (tx ? tx.transaction(work) : pool.transaction(work)), events);
          position = events[events.length - 1]!.position;
          applied += events.length;
          onProgress({ projection: projection.name, applied, phase: 'replaying' });
        }
      };
      await replay(null);
      onProgress({ projection: projection.name, applied, phase: 'swapping' });
      await ensureCheckpoints(pool, [projection.name]);
      await pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`
          SELECT 1 FROM projection_checkpoints WHERE name = ANY(${sql.array(
            [projection.name, ...(options.partitions?.names ?? [])],
            'text',
          )}) ORDER BY name FOR UPDATE`);
        await replay(tx);
        await tx.query(sql.unsafe`SET LOCAL search_path TO public`);
        for (const table of projection.tables) {
          await tx.query(rawSql(`DROP TABLE IF EXISTS public.${table} CASCADE`));
        }
        for (const table of projection.tables) {
          // A partitioned table's partitions (spans' weeks) are tables of their own: they move too.
          const partitions = await tx.anyFirst(sql.type(z.object({ relname: z.string() }))`
            SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = ${`${schema}.${table}`}::regclass`);
          for (const partition of [table, ...partitions]) await tx.query(rawSql(`ALTER TABLE ${schema}.${partition} SET SCHEMA public`));
        }
        // The rebuilt tables applied every event up to here, so a stop recorded before is over.
        await tx.query(sql.unsafe`
          UPDATE projection_checkpoints SET tx = ${position.tx}, seq = ${position.seq}, updated_at = now(),
            stopped_event_id = NULL, stopped_stream = NULL, stopped_type = NULL, stopped_tx = NULL, stopped_seq = NULL,
            stopped_error = NULL, stopped_since = NULL
          WHERE name = ${projection.name}`);
        await tx.query(sql.unsafe`DELETE FROM projection_checkpoints WHERE name = ${scratch.name}`);
        await options.partitions?.afterSwap(tx, position);
        await tx.query(rawSql(`DROP SCHEMA ${schema} CASCADE`));
      });
      onProgress({ projection: projection.name, applied, phase: 'done' });
      return { applied };
    } catch (error) {
      await pool.query(rawSql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).catch(() => undefined);
      await pool.query(sql.unsafe`DELETE FROM projection_checkpoints WHERE name = ${scratch.name}`).catch(() => undefined);
      throw error;
    } finally {
      await lockConnection.query(sql.unsafe`SELECT pg_advisory_unlock(${REBUILD_LOCK_CLASS}, hashtext(${schema}))`).catch(() => undefined);
    }
  });
};
