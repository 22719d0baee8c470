import { sql, type DatabasePool, type DatabaseTransactionConnection } from 'slonik';
import { comparePosition, type EventStore, START, type StoredEvent } from '../../../domain/eventstore/types.ts';
import type { CommandContext } from '../../../domain/handleCommand.ts';
import { createProjectionRunner } from '../../../projections/projectionRunner.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { freshMigratedDatabase, type TestDatabase } from '../../support/database.ts';
import { eventLogOf } from '../../support/eventStoreBackend.ts';

export const context: CommandContext = { actor: 'test', requestId: null, now: () => new Date('2024-02-01T00:00:00Z') };

export type Harness = {
  /** Closing it closes the log's client too. */
  db: TestDatabase;
  store: EventStore;
  /** The same log read inside a transaction (rebuilds), when the log lives in the database. */
  storeInTransaction?: (tx: DatabaseTransactionConnection) => EventStore;
  project: (batchSize?: number) => Promise<void>;
  /** Every event written so far, once readers may see them all (see `project`). */
  readEverything: () => Promise<StoredEvent[]>;
};

/**
 * A fresh database with the event log (of the selected backend: its `events` table, or
 * EventStoreDB's stand-in), and `project()` to bring the tracing read model up to date.
 */
export const tracingHarness = async (): Promise<Harness> => {
  const database = await freshMigratedDatabase();
  const log = eventLogOf(database);
  const db: TestDatabase = {
    ...database,
    close: async () => {
      await log.close();
      await database.close();
    },
  };
  const store = log.store;
  return {
    db,
    store,
    storeInTransaction: log.storeInTransaction,
    project: async (batchSize = 100) => {
      // catchUp applies what readers may see now; on a shared Postgres another database's open
      // transaction (a benchmark's COPY, say) can hide our newest events for a while, so wait until the last one is in.
      const last = await store.headPosition();
      const runner = createProjectionRunner({ store, pool: db.pool, projections: [tracingProjection], batchSize });
      for (let i = 0; ; i++) {
        await runner.catchUp();
        if (comparePosition(last, START) === 0 || comparePosition(runner.position(), last) >= 0) return;
        if (i > 3000) throw new Error('the tracing projection did not catch up');
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    readEverything: async () => {
      const head = await store.headPosition();
      for (let i = 0; ; i++) {
        const events = await store.readAll(START, 100_000);
        const last = events.at(-1)?.position ?? START;
        if (comparePosition(last, head) >= 0) return events;
        if (i > 3000) throw new Error('the newest events did not become readable');
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
};

/** Every row of every tracing table, in a stable order, for row-for-row comparisons. */
export const dumpTracing = async (pool: DatabasePool) => {
  const out: Record<string, unknown[]> = {};
  for (const table of tracingProjection.tables) {
    out[table] = [...(await pool.any(sql.unsafe`SELECT * FROM ${sql.identifier([table])} ORDER BY 1`))];
  }
  return out;
};

export const rows = async (pool: DatabasePool, query: ReturnType<typeof sql.unsafe>): Promise<Record<string, unknown>[]> =>
  [...(await pool.any(query))] as Record<string, unknown>[];
