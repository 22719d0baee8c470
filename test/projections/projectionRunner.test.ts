import { sql, type DatabasePool } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import type { EventStore, NewEvent, StoredEvent } from '../../domain/eventstore/types.ts';
import { postgresEventStoreMigrations } from '../../domain/eventstore/postgresEventStoreMigrations.ts';
import { checkpointMigrations } from '../../projections/checkpointMigrations.ts';
import { migrate } from '../../projections/migrate.ts';
import type { Projection } from '../../projections/projection.ts';
import {
  createProjectionRunner,
  ProjectionStoppedError,
  ProjectionTimeoutError,
  type ProjectionRunner,
} from '../../projections/projectionRunner.ts';
import { createReadModelLease, readModelOwners, type ReadModelLease } from '../../projections/readModelLease.ts';
import { rebuildProjection } from '../../projections/rebuildProjection.ts';
import { openDatabase, type Database } from '../../ops/database/openDatabase.ts';
import { createScratchDatabase, DEFAULT_PG_URL, type ScratchDatabase } from '../../ops/bench/scratchDatabase.ts';
import { freshDatabase, serverUrl, type TestDatabase } from '../support/database.ts';
import { fragileProjection } from './fragileProjection.ts';
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

/**
 * Several processes on one PostgreSQL database, each with its own pool: the read model's lock
 * decides which one applies it. Always on a real Postgres (a scratch database on the server of
 * SERVICE_SQL_DATABASE_URL, or the local one CI provides), also during the PGlite run: advisory
 * locks between processes are the point, and PGlite is one process.
 */
type Proc = { db: Database; runner: ProjectionRunner; applied: () => number; lease: ReadModelLease; heard: StoredEvent[] };
type LeaseCtx = { scratch: ScratchDatabase; procs: Proc[]; store: EventStore };
const leases = suite<LeaseCtx>('projection runner, several processes', {} as LeaseCtx);

const startProc = async (url: string, label: string, claimMs = 100, others: readonly Projection[] = []): Promise<Proc> => {
  const db = await openDatabase({ url, maximumPoolSize: 4 });
  let applied = 0;
  const counted: Projection = {
    ...sampleProjection,
    apply: async (tx, events) => {
      await sampleProjection.apply(tx, events);
      applied += events.length;
    },
  };
  const lease = createReadModelLease(db.pool, { label });
  // Like a server's auth state: every process hears every event, whoever applies the read models.
  const heard: StoredEvent[] = [];
  const runner = createProjectionRunner({
    store: createPostgresEventStore(db.pool),
    pool: db.pool,
    projections: [counted, ...others],
    liveModels: [{ name: 'heard', load: async () => undefined, apply: (events) => void heard.push(...events) }],
    idleMs: 10,
    claimMs,
    lease,
  });
  await runner.start();
  return { db, runner, applied: () => applied, lease, heard };
};

const ownerOf = (procs: readonly Proc[]) => procs.filter((p) => p.runner.projections()[0]!.ownedHere);

// Generous: a loaded CI machine may take seconds for what takes milliseconds here.
const eventually = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.unreachable(`${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

leases.before.each(async (ctx) => {
  ctx.scratch = await createScratchDatabase(serverUrl() ?? DEFAULT_PG_URL, 'loupe_lease');
  const db = await openDatabase({ url: ctx.scratch.url, maximumPoolSize: 2 });
  await migrate(db.pool, [
    ...postgresEventStoreMigrations,
    ...checkpointMigrations,
    ...sampleProjection.migrations,
    ...fragileProjection().migrations,
  ]);
  await db.close();
  ctx.procs = [];
});
leases.after.each(async (ctx) => {
  for (const p of ctx.procs) {
    await p.runner.stop().catch(() => undefined);
    await p.db.close().catch(() => undefined);
  }
  await ctx.scratch.drop();
});

leases('one process applies the read model; the other answers waitFor from its checkpoint and names the owner', async (ctx) => {
  ctx.procs.push(await startProc(ctx.scratch.url, 'loupe 1@a'), await startProc(ctx.scratch.url, 'loupe 2@b'));
  const [first, second] = ctx.procs as [Proc, Proc];
  assert.equal(ownerOf(ctx.procs), [first], 'the first process to start owns it');
  const store = createPostgresEventStore(second.db.pool);
  let last = null;
  for (let i = 0; i < 40; i++) last = (await store.appendToStream(`s${i % 3}`, [ev('E', i)], 'any')).position;
  // Read-your-writes in the process that wrote but does not apply.
  await second.runner.waitFor(last!, 20_000);
  assert.is((await dump(second.db.pool)).events.length, 40);
  assert.is(first.applied(), 40);
  assert.is(second.applied(), 0, 'the follower applied nothing');
  assert.is(await applies(second.db.pool), 40);
  await eventually('the follower names the owner', () => second.runner.projections()[0]!.owner === 'loupe 1@a');
  assert.equal(second.runner.projections()[0]!.position, first.runner.projections()[0]!.position);
  assert.equal(
    await readModelOwners(second.db.pool, ['sample', 'other']),
    new Map([
      ['sample', 'loupe 1@a'],
      ['other', null],
    ]),
  );
});

leases('when the owner session dies, the other process takes over within a second and nothing is applied twice', async (ctx) => {
  ctx.procs.push(await startProc(ctx.scratch.url, 'loupe 1@a', 200), await startProc(ctx.scratch.url, 'loupe 2@b', 200));
  const [first, second] = ctx.procs as [Proc, Proc];
  const store = createPostgresEventStore(second.db.pool);
  let written = 0;
  let writing = true;
  let last = null;
  const writer = (async () => {
    while (writing) {
      last = (await store.appendToStream(`s${written % 5}`, [ev('E', written)], 'any')).position;
      written++;
    }
  })();
  let tookOver: number;
  try {
    await eventually('the owner applies', () => first.applied() > 20);
    // The owner "dies": the server ends its lock session as it does when a process is killed, and
    // (being dead) it does not come back to claim; its runner, still in a batch maybe, goes on.
    const killed = Date.now();
    await second.db.pool.query(sql.unsafe`
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'loupe 1@a'`);
    await first.lease.release();
    await eventually('the other process owns it', () => ownerOf(ctx.procs).includes(second), 10_000);
    tookOver = Date.now() - killed;
    await eventually('the new owner applies', () => second.applied() > 0);
  } finally {
    writing = false;
    await writer;
  }
  await second.runner.waitFor(last!, 20_000);
  assert.ok(tookOver < 3000, `took over after ${tookOver} ms`);
  await eventually('the old owner notices it lost the lock', () => !first.runner.projections()[0]!.ownedHere);
  assert.equal(ownerOf(ctx.procs), [second]);
  assert.is(await applies(second.db.pool), written, 'every event applied exactly once');
  assert.is(first.applied() + second.applied(), written);
  assert.is((await dump(second.db.pool)).events.length, written);
  assert.equal(
    second.heard.map((e) => (e.data as { n: number }).n),
    Array.from({ length: written }, (_, i) => i),
    'the live model heard each event once, in order, across the takeover',
  );
});

leases('a stopped process releases the read model, and one that starts later follows until then', async (ctx) => {
  ctx.procs.push(await startProc(ctx.scratch.url, 'loupe 1@a'), await startProc(ctx.scratch.url, 'loupe 2@b'));
  const [first, second] = ctx.procs as [Proc, Proc];
  await first.runner.stop();
  await eventually('the other process owns it', () => second.runner.projections()[0]!.ownedHere, 2000);
  const { position } = await createPostgresEventStore(first.db.pool).appendToStream('x', [ev('E', 1)], 'no_stream');
  await second.runner.waitFor(position, 20_000);
  assert.is(second.applied(), 1);
  assert.equal(await readModelOwners(first.db.pool, ['sample']), new Map([['sample', 'loupe 2@b']]));
});

leases('a read model stopped in its owner answers a wait in the other process at once with projection_stopped', async (ctx) => {
  const fragile = fragileProjection();
  ctx.procs.push(
    await startProc(ctx.scratch.url, 'loupe 1@a', 100, [fragile]),
    await startProc(ctx.scratch.url, 'loupe 2@b', 100, [fragile]),
  );
  const [, second] = ctx.procs as [Proc, Proc];
  const store = createPostgresEventStore(second.db.pool);
  const poison = (await store.appendToStream('notes', [{ type: 'NoteTaken', data: { note: 'a\u0000b' }, metadata: meta }], 'no_stream'))
    .position;
  const started = Date.now();
  try {
    await second.runner.waitFor(poison, 30_000);
    assert.unreachable('the fragile read model cannot apply it');
  } catch (error) {
    assert.instance(error, ProjectionStoppedError);
    assert.is((error as ProjectionStoppedError).stop.projection, 'fragile');
  }
  assert.ok(Date.now() - started < 15_000, 'answered long before the timeout');
  assert.is(second.runner.projections().find((p) => p.name === 'fragile')?.stop?.event.type, 'NoteTaken');
  // A change the stopped read model does not read is still waited for and seen.
  const { position } = await store.appendToStream('s', [ev('E', 1)], 'no_stream');
  await second.runner.waitFor(position, 20_000);
  assert.is(await applies(second.db.pool), 2);
});

leases(
  'a rebuild beside the owner swaps in equal tables, and the owner carries on on them without applying anything twice',
  async (ctx) => {
    ctx.procs.push(await startProc(ctx.scratch.url, 'loupe 1@a'), await startProc(ctx.scratch.url, 'loupe 2@b'));
    const [first, second] = ctx.procs as [Proc, Proc];
    const store = createPostgresEventStore(second.db.pool);
    let written = 0;
    let writing = true;
    let last = null;
    const writer = (async () => {
      while (writing) {
        last = (await store.appendToStream(`s${written % 7}`, [ev(written % 3 ? 'Changed' : 'Made', written)], 'any')).position;
        written++;
      }
    })();
    await eventually('the owner applies', () => first.applied() > 30);
    // A third "process": the CLI's rebuild, with its own pool, while ingest goes on.
    const cli = await openDatabase({ url: ctx.scratch.url, maximumPoolSize: 3 });
    try {
      await rebuildProjection(cli.pool, createPostgresEventStore(cli.pool), sampleProjection, {
        storeInTransaction: (tx) => createPostgresEventStore(tx),
        batchSize: 16,
      });
    } finally {
      await cli.close();
    }
    const atSwap = first.applied();
    await eventually('the owner applies on the swapped-in tables', () => first.applied() > atSwap + 10);
    writing = false;
    await writer;
    await second.runner.waitFor(last!, 20_000);
    assert.equal(ownerOf(ctx.procs), [first], 'the owner kept the read model');
    assert.is(await applies(second.db.pool), written, 'the swapped-in counter plus what the owner applied after: each event once');
    assert.is((await dump(second.db.pool)).events.length, written);
  },
);

leases.run();
