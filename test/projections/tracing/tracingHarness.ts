import { sql, type DatabasePool } from 'slonik';
import { createPostgresEventStore } from '../../../domain/eventstore/postgresEventStore.ts';
import type { EventStore } from '../../../domain/eventstore/types.ts';
import type { CommandContext } from '../../../domain/handleCommand.ts';
import { createProjectionRunner } from '../../../projections/projectionRunner.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { freshMigratedDatabase, type TestDatabase } from '../../support/database.ts';

export const context: CommandContext = { actor: 'test', requestId: null, now: () => new Date('2024-02-01T00:00:00Z') };

export type Harness = { db: TestDatabase; store: EventStore; project: (batchSize?: number) => Promise<void> };

/** A fresh database with the event log, and `project()` to bring the tracing read model up to date. */
export const tracingHarness = async (): Promise<Harness> => {
  const db = await freshMigratedDatabase();
  const store = createPostgresEventStore(db.pool);
  return {
    db,
    store,
    project: (batchSize = 100) => createProjectionRunner({ store, pool: db.pool, projections: [tracingProjection], batchSize }).catchUp(),
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

export const rows = async (pool: DatabasePool, query: ReturnType<typeof sql.unsafe>) => [...(await pool.any(query))];
