import { sql, type DatabasePool } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import type { EventStore, NewEvent, StoredEvent } from '../../domain/eventstore/types.ts';
import { postgresEventStoreMigrations } from '../../domain/eventstore/postgresEventStoreMigrations.ts';
import { checkpointMigrations } from '../../projections/checkpointMigrations.ts';
import { migrate } from '../../projections/migrate.ts';
import { createProjectionRunner, ProjectionTimeoutError } from '../../projections/projectionRunner.ts';
import { rebuildProjection } from '../../projections/rebuildProjection.ts';
import { freshDatabase, type TestDatabase } from '../support/database.ts';
import { sampleProjection } from './sampleProjection.ts';

type Ctx = { db: TestDatabase; store: EventStore };
const test = suite<Ctx>('projection runner', {} as Ctx);

const meta = { actor: 'test', requestId: null, time: new Date(0).toISOString(), causation: null };
const ev = (type: string, n: number): NewEvent => ({ type, data: { n }, metadata: meta });

const dump = async (pool: DatabasePool) => ({
  events: await pool.any(sql.unsafe`SELECT * FROM sample_events ORDER BY event_id`),
  streams: await pool.any(sql.unsafe`SELECT * FROM sample_streams ORDER BY stream`),
});
const applies = (pool: DatabasePool) => pool.oneFirst(sql.unsafe`SELECT count FROM sample_applies WHERE id = 1`);

test.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
  await migrate(ctx.db.pool, [...postgresEventStoreMigrations, ...checkpointMigrations, ...sampleProjection.migrations]);
  ctx.store = createPostgresEventStore(ctx.db.pool);
});
test.after.each(async (ctx) => {
  await ctx.db.close();
});

test('given appended events, when the runner catches up, then the read model holds them and waitFor resolves', async ({ db, store }) => {
  const runner = createProjectionRunner({ store, pool: db.pool, projections: [sampleProjection], idleMs: 20 });
  await runner.start();
  try {
    const { position } = await store.appendToStream('a', [ev('Made', 1), ev('Changed', 2)], 'no_stream');
    await runner.waitFor(position, 5000);
    assert.equal((await dump(db.pool)).streams, [{ stream: 'a', last_type: 'Changed', revision: 1 }]);
    assert.is(await applies(db.pool), 2);
  } finally {
    await runner.stop();
  }
});

test('waitFor gives up with ProjectionTimeoutError when the read model cannot get there', async ({ db, store }) => {
  const runner = createProjectionRunner({ store, pool: db.pool, projections: [sampleProjection] });
  const { position } = await store.appendToStream('a', [ev('Made', 1)], 'no_stream');
  try {
    await runner.waitFor(position, 50); // never started
    assert.unreachable('must time out');
  } catch (error) {
    assert.instance(error, ProjectionTimeoutError);
  }
});

test('two runners on one database (two processes) apply every event exactly once', async ({ db, store }) => {
  const seen: StoredEvent[][] = [[], []];
  const runners = [0, 1].map((i) =>
    createProjectionRunner({
      store,
      pool: db.pool,
      projections: [sampleProjection],
      idleMs: 5,
      batchSize: 7,
      liveModels: [{ name: `live${i}`, load: async () => undefined, apply: (events) => void seen[i]!.push(...events) }],
    }),
  );
  await Promise.all(runners.map((r) => r.start()));
  try {
    let last = null;
    for (let i = 0; i < 60; i++) last = (await store.appendToStream(`s${i % 4}`, [ev('E', i)], 'any')).position;
    await Promise.all(runners.map((r) => r.waitFor(last!, 10_000)));
    assert.is(await applies(db.pool), 60, 'fenced checkpoints: no event applied twice');
    assert.is((await dump(db.pool)).events.length, 60);
    // Every process still hears every event once, in order, for its in-memory models.
    for (const events of seen)
      assert.equal(
        events.map((e) => (e.data as { n: number }).n),
        Array.from({ length: 60 }, (_, i) => i),
      );
  } finally {
    await Promise.all(runners.map((r) => r.stop()));
  }
});

test('a rebuilt read model equals the live one row for row, and the live runner carries on after the swap', async ({ db, store }) => {
  const runner = createProjectionRunner({ store, pool: db.pool, projections: [sampleProjection], idleMs: 10 });
  await runner.start();
  try {
    let last = null;
    for (let i = 0; i < 300; i++)
      last = (await store.appendToStream(`stream-${i % 17}`, [ev(i % 3 ? 'Changed' : 'Made', i)], 'any')).position;
    // Wait for our own last append, not the visible head: on a shared server another
    // database's open transaction can hold the visibility horizon back for a moment.
    await runner.waitFor(last!, 10_000);
    const live = await dump(db.pool);
    assert.is(live.events.length, 300);
    const progress: string[] = [];
    const { applied } = await rebuildProjection(db.pool, store, sampleProjection, {
      storeInTransaction: (tx) => createPostgresEventStore(tx),
      onProgress: (p) => progress.push(p.phase),
      batchSize: 64,
    });
    assert.is(applied, 300);
    assert.equal(await dump(db.pool), live);
    assert.ok(progress.includes('replaying') && progress.at(-1) === 'done');
    // The swapped-in tables keep being fed by the live runner.
    const { position } = await store.appendToStream('after-rebuild', [ev('Made', 999)], 'no_stream');
    await runner.waitFor(position, 5000);
    assert.is((await dump(db.pool)).events.length, 301);
    const schemas = await db.pool.anyFirst(sql.unsafe`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rebuild_%'`);
    assert.equal(schemas, [], 'the scratch schema is gone');
  } finally {
    await runner.stop();
  }
});

test.run();
