import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { createPostgresEventStore } from '../../../domain/eventstore/postgresEventStore.ts';
import { comparePosition, type EventStore, START, type StoredEvent } from '../../../domain/eventstore/types.ts';
import type { CommandContext } from '../../../domain/handleCommand.ts';
import { createProjectionRunner } from '../../../projections/projectionRunner.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { freshMigratedDatabase, type TestDatabase } from '../../support/database.ts';

export const context: CommandContext = { actor: 'test', requestId: null, now: () => new Date('2024-02-01T00:00:00Z') };

export type Harness = {
  db: TestDatabase;
  store: EventStore;
  project: (batchSize?: number) => Promise<void>;
  /** Every event written so far, once readers may see them all (see `project`). */
  readEverything: () => Promise<StoredEvent[]>;
};

/** A fresh database with the event log, and `project()` to bring the tracing read model up to date. */
export const tracingHarness = async (): Promise<Harness> => {
  const db = await freshMigratedDatabase();
  const store = createPostgresEventStore(db.pool);
  return {
    db,
    store,
    project: async (batchSize = 100) => {
      // catchUp applies what readers may see now; on a shared Postgres another database's open
      // transaction (a benchmark's COPY, say) can hide our newest events for a while, so wait until the last one is in.
      const last = await db.pool.maybeOne(sql.type(z.object({ tx: z.string(), seq: z.bigint() }))`
        SELECT transaction_id::text AS tx, global_position AS seq FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1`);
      const runner = createProjectionRunner({ store, pool: db.pool, projections: [tracingProjection], batchSize });
      for (let i = 0; ; i++) {
        await runner.catchUp();
        if (last === null || comparePosition(runner.position(), { tx: BigInt(last.tx), seq: last.seq }) >= 0) return;
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
