import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPostgresEventStore } from '../../../domain/eventstore/postgresEventStore.ts';
import type { EventStore, NewEvent } from '../../../domain/eventstore/types.ts';
import type { Reactor } from '../../../projections/reactors/reactor.ts';
import { createReactorRunner } from '../../../projections/reactors/reactorRunner.ts';
import { createReadModelLease } from '../../../projections/readModelLease.ts';
import { freshMigratedDatabase, type TestDatabase } from '../../support/database.ts';
import { memoryEventStore } from '../../support/memoryEventStore.ts';
import { inStream, reactorSpec } from '../../support/reactorSpec.ts';
import { pingReactor } from './pingReactor.ts';

type Ctx = { db: TestDatabase; store: EventStore };
const test = suite<Ctx>('reactor runner', {} as Ctx);

const meta = { actor: 'test', requestId: null, time: new Date(0).toISOString(), causation: null };
const ev = (type: string, n: number): NewEvent => ({ type, data: { n }, metadata: meta });

test.before.each(async (ctx) => {
  ctx.db = await freshMigratedDatabase();
  ctx.store = createPostgresEventStore(ctx.db.pool);
});
test.after.each(async (ctx) => {
  await ctx.db.close();
});

const streamsOf = async (store: EventStore, prefix: string) => {
  const all = await store.readAll({ tx: 0n, seq: 0n }, 10_000);
  return all.filter((e) => e.stream.startsWith(prefix)).map((e) => e.stream);
};

test('given pings among other events, it reacts to the pings only, once, and its checkpoint outlives the process', async ({
  db,
  store,
}) => {
  await store.appendToStream('a', [ev('Ping', 1), ev('Noise', 0), ev('Ping', 2)], 'no_stream');
  const first = pingReactor(store);
  await createReactorRunner({ store, pool: db.pool, reactors: [first.reactor] }).catchUp();
  assert.equal(first.seen, ['Ping', 'Ping']);
  assert.equal(first.issued, [{ pong: 1 }, { pong: 2 }]);

  await store.appendToStream('b', [ev('Ping', 3)], 'no_stream');
  const second = pingReactor(store);
  await createReactorRunner({ store, pool: db.pool, reactors: [second.reactor] }).catchUp();
  assert.equal(second.issued, [{ pong: 3 }], 'a new process resumes after the checkpoint');
  assert.equal(await streamsOf(store, 'pong-'), ['pong-1', 'pong-2', 'pong-3']);
});

test('the schedule runs when due, and a restart within the period does not run it again', async ({ db, store }) => {
  let clock = new Date('2026-01-01T00:00:00Z');
  const one = pingReactor(store);
  const runner = createReactorRunner({ store, pool: db.pool, reactors: [one.reactor], now: () => clock, idleMs: 10 });
  await runner.start();
  const until = async (check: () => boolean) => {
    for (const deadline = Date.now() + 5000; !check(); ) {
      if (Date.now() > deadline) assert.unreachable('the runner never got there');
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  try {
    await until(() => one.issued.length === 1);
    clock = new Date('2026-01-01T00:00:59Z');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(one.issued, [{ tick: '2026-01-01T00:00:00.000Z' }]);
    clock = new Date('2026-01-01T00:01:00Z');
    await until(() => one.issued.length === 2);
  } finally {
    await runner.stop();
  }
  const two = pingReactor(store);
  const again = createReactorRunner({ store, pool: db.pool, reactors: [two.reactor], now: () => clock, idleMs: 10 });
  await again.start();
  await new Promise((r) => setTimeout(r, 100));
  await again.stop();
  assert.equal(two.issued, [], 'the last run is kept in the checkpoint row');
  const [state] = again.reactors();
  assert.equal(state!.scheduledAt, new Date('2026-01-01T00:01:00Z'));
});

test('a failing command is recorded on the checkpoint row, retried with backoff, and the checkpoint waits for it', async ({
  db,
  store,
}) => {
  await store.appendToStream('a', [ev('Ping', 7)], 'no_stream');
  const flaky = pingReactor(store, { failFirst: 1 });
  const runner = createReactorRunner({ store, pool: db.pool, reactors: [{ ...flaky.reactor, schedule: undefined }], idleMs: 10 });
  await runner.start();
  try {
    for (const deadline = Date.now() + 5000; flaky.issued.length === 0; ) {
      if (Date.now() > deadline) assert.unreachable('never retried');
      const error = await db.pool.maybeOneFirst(sql.unsafe`SELECT error FROM reactor_checkpoints WHERE name = 'ping'`);
      if (error) assert.match(String(error), /pong service is down/);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await runner.stop();
  }
  assert.equal(flaky.issued, [{ pong: 7 }]);
  const row = (await db.pool.one(sql.unsafe`SELECT seq, error FROM reactor_checkpoints WHERE name = 'ping'`)) as {
    seq: bigint;
    error: string | null;
  };
  assert.is(row.error, null, 'success clears the error');
  assert.ok(Number(row.seq) > 0);
});

test("each reactor runs on its own lane: one blocked in a long call (a model that takes 30 s) does not delay another's next run", async ({
  db,
  store,
}) => {
  // A reactor whose command waits until the test lets it go: a stand-in for an LLM judge that answers slowly.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let blocked = false;
  const slow: Reactor<string> = {
    name: 'slow',
    eventTypes: ['Slow'],
    react: async (events) => events.map((e) => e.id),
    async issue() {
      blocked = true;
      await held;
    },
  };
  const ping = pingReactor(store);
  const runner = createReactorRunner({ store, pool: db.pool, reactors: [slow, { ...ping.reactor, schedule: undefined }], idleMs: 10 });
  const until = async (what: string, check: () => boolean) => {
    for (const deadline = Date.now() + 10_000; !check(); ) {
      if (Date.now() > deadline) assert.unreachable(`never got there: ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  await runner.start();
  try {
    await store.appendToStream('slow', [ev('Slow', 0)], 'no_stream');
    await until('the slow reactor is in its call', () => blocked);
    await store.appendToStream('a', [ev('Ping', 1)], 'no_stream');
    await until('the other reactor reacts while the slow one is blocked', () => ping.issued.length === 1);
    await store.appendToStream('b', [ev('Ping', 2)], 'no_stream');
    await until('and runs again', () => ping.issued.length === 2);
    assert.equal(ping.issued, [{ pong: 1 }, { pong: 2 }]);
    const slowRow = (await db.pool.one(sql.unsafe`SELECT seq FROM reactor_checkpoints WHERE name = 'slow'`)) as { seq: bigint };
    assert.is(slowRow.seq, 0n, 'the slow reactor has not moved its checkpoint: its call is still running');
  } finally {
    release();
    await runner.stop();
  }
  const after = (await db.pool.one(sql.unsafe`SELECT seq FROM reactor_checkpoints WHERE name = 'slow'`)) as { seq: bigint };
  assert.ok(after.seq > 0n, 'released, the slow reactor finished its batch');
});

test('several processes on PostgreSQL: one owner reacts; when it stops, another takes over from its checkpoint', async ({ db, store }) => {
  if (db.kind !== 'postgres') return; // PGlite is one process
  const a = pingReactor(store);
  const b = pingReactor(store);
  const leaseA = createReadModelLease(db.pool, { label: 'loupe a@test' });
  const leaseB = createReadModelLease(db.pool, { label: 'loupe b@test' });
  const noSchedule = (r: typeof a.reactor) => ({ ...r, schedule: undefined });
  const runA = createReactorRunner({ store, pool: db.pool, reactors: [noSchedule(a.reactor)], lease: leaseA, idleMs: 10, claimMs: 50 });
  const runB = createReactorRunner({ store, pool: db.pool, reactors: [noSchedule(b.reactor)], lease: leaseB, idleMs: 10, claimMs: 50 });
  await runA.start();
  await runB.start();
  const until = async (check: () => boolean) => {
    for (const deadline = Date.now() + 10_000; !check(); ) {
      if (Date.now() > deadline) assert.unreachable('never got there');
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  try {
    await store.appendToStream('a', [ev('Ping', 1), ev('Ping', 2)], 'no_stream');
    await until(() => a.issued.length + b.issued.length >= 2);
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(a.issued.length === 0 || b.issued.length === 0, 'only one process reacts');
    const [owner, other] = a.issued.length > 0 ? [runA, b] : [runB, a];
    await owner.stop();
    await store.appendToStream('b', [ev('Ping', 3)], 'no_stream');
    await until(() => other.issued.length === 1);
    assert.equal(other.issued, [{ pong: 3 }]);
  } finally {
    await runA.stop();
    await runB.stop();
  }
});

test.run();

const spec = suite('reactorSpec');
spec('given pings, then pongs; on its schedule, a tick at that time', async () => {
  // The spec builds its own database and never issues: the store behind `issue` is not used.
  const { reactor } = pingReactor(memoryEventStore().store);
  await reactorSpec(reactor)
    .given(
      inStream('s', { type: 'Ping', data: { n: 4 } }, { type: 'Other', data: { n: 5 } }),
      inStream('t', { type: 'Ping', data: { n: 6 } }),
    )
    .then([{ pong: 4 }, { pong: 6 }]);
  await reactorSpec(reactor)
    .given()
    .onSchedule(new Date('2026-03-01T00:00:00Z'))
    .then([{ tick: '2026-03-01T00:00:00.000Z' }]);
});
spec.run();
