import { type DatabasePool, sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { postgresEventStoreMigrations } from '../../domain/eventstore/postgresEventStoreMigrations.ts';
import type { NewEvent } from '../../domain/eventstore/types.ts';
import { checkpointMigrations } from '../../projections/checkpointMigrations.ts';
import { migrate } from '../../projections/migrate.ts';
import type { Projection } from '../../projections/projection.ts';
import { createProjectionRunner } from '../../projections/projectionRunner.ts';
import { freshDatabase } from '../support/database.ts';

const test = suite('projection batches are bounded by bytes as well as events');

const meta = { actor: 'test', requestId: null, time: new Date(0).toISOString(), causation: null };
/** A read model that notes the `n` of each event of each batch it is given. */
const recording = () => {
  const batches: number[][] = [];
  const recorder: Projection = {
    name: 'recorder',
    tables: [],
    migrations: [],
    apply: async (_tx, events) => {
      batches.push(events.map((e) => (e.data as { n: number }).n));
    },
  };
  return { batches, recorder };
};
/**
 * Waits until every event is below the oldest running transaction, where the runner reads. On a
 * shared PostgreSQL server another database's open transaction can hold that horizon back for a
 * moment, and a batch would then end early: correct, but not the batching under test.
 */
const untilAllReadable = async (pool: DatabasePool) => {
  for (let attempt = 0; attempt < 200; attempt++) {
    const waiting = await pool.oneFirst(
      sql.type(
        z.object({ n: z.number() }),
      )`SELECT count(*)::int AS n FROM events WHERE transaction_id >= pg_snapshot_xmin(pg_current_snapshot())`,
    );
    if (waiting === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('events stayed above the transaction horizon for 10 s');
};
const bulky = (n: number, bytes: number): NewEvent => ({ type: 'Bulky', data: { n, text: 'x'.repeat(bytes) }, metadata: meta });

test('given large events, each batch holds as many as fit in the byte budget (at least one), and every event is applied once in order', async () => {
  const db = await freshDatabase();
  try {
    await migrate(db.pool, [...postgresEventStoreMigrations, ...checkpointMigrations]);
    const store = createPostgresEventStore(db.pool);
    const { batches, recorder } = recording();
    // Given 7 events of ~10 KB and one of ~50 KB (bigger than the whole budget)
    for (let n = 1; n <= 7; n++) await store.appendToStream(`s${n}`, [bulky(n, 10_000)], 'no_stream');
    await store.appendToStream('big', [bulky(8, 50_000)], 'no_stream');
    await store.appendToStream('small', [bulky(9, 10)], 'no_stream');

    await untilAllReadable(db.pool);

    // When a runner with a 25 KB budget (and room for 20 events by count) catches up
    await createProjectionRunner({ store, pool: db.pool, projections: [recorder], batchSize: 20, batchBytes: 25_000 }).catchUp();

    // Then batches never exceed the budget unless a single event does, and nothing is lost or doubled
    assert.equal(batches, [[1, 2], [3, 4], [5, 6], [7], [8], [9]]);
  } finally {
    await db.close();
  }
});

test('given events appended before their size was stored with them (data_bytes null), the budget still holds', async () => {
  const db = await freshDatabase();
  try {
    await migrate(db.pool, [...postgresEventStoreMigrations, ...checkpointMigrations]);
    const store = createPostgresEventStore(db.pool);
    const { batches, recorder } = recording();
    // Given three ~10 KB events as the append of migration 0001 wrote them (no size), then one with it
    for (let n = 1; n <= 3; n++) {
      await db.pool.query(sql.unsafe`
        INSERT INTO events (event_id, stream, revision, type, data, metadata)
        VALUES (gen_random_uuid(), ${`old${n}`}, 0, 'Bulky', ${JSON.stringify(bulky(n, 10_000).data)}::json, ${JSON.stringify(meta)}::jsonb)`);
    }
    await store.appendToStream('new', [bulky(4, 10_000)], 'no_stream');
    assert.equal(await db.pool.anyFirst(sql.unsafe`SELECT data_bytes FROM events ORDER BY global_position`), [
      null,
      null,
      null,
      JSON.stringify(bulky(4, 10_000).data).length,
    ]);

    await untilAllReadable(db.pool);

    // When a runner with a 25 KB budget catches up
    await createProjectionRunner({ store, pool: db.pool, projections: [recorder], batchSize: 20, batchBytes: 25_000 }).catchUp();

    // Then the old events are measured too: two per batch
    assert.equal(batches, [
      [1, 2],
      [3, 4],
    ]);
  } finally {
    await db.close();
  }
});

test.run();
