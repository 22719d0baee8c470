import pg from 'pg';
import { sql, type DatabasePool } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import type { EventStore, NewEvent, Position } from '../../domain/eventstore/types.ts';
import { comparePosition, positionToString } from '../../domain/eventstore/types.ts';
import { ingestSpans } from '../../domain/tracing/ingestSpans.ts';
import { migrate } from '../../projections/migrate.ts';
import type { Projection } from '../../projections/projection.ts';
import { createProjectionRunner, ProjectionStoppedError, type ProjectionRunner } from '../../projections/projectionRunner.ts';
import { projectionStatus } from '../../projections/projectionStatus.ts';
import { rebuildProjection, RebuildStoppedError } from '../../projections/rebuildProjection.ts';
import { cleanRebuildLeftovers, REBUILD_LOCK_CLASS } from '../../projections/rebuildLeftovers.ts';
import { recordSkipDecision, SkipRefusedError } from '../../projections/recordSkipDecision.ts';
import { tracingProjection } from '../../projections/tracing/tracingProjection.ts';
import { freshMigratedDatabase, type TestDatabase } from '../support/database.ts';
import { batch, newTraceId, spanRecord } from '../support/spanFixtures.ts';
import { dumpTracing } from './tracing/tracingHarness.ts';
import { fragileProjection } from './fragileProjection.ts';

/**
 * One event a read model cannot apply (a note with NUL, which a Postgres text column refuses)
 * stops that read model only: the real tracing read model and the live models carry on, the stop
 * names the event and the database's reason, and an operator's skip decision lets it move on the
 * same way live and in a rebuild. Runs on PGlite and on Postgres.
 */
type Logged = { level: 'error' | 'warn' | 'info'; msg: string; obj: object };
type Ctx = { db: TestDatabase; store: EventStore; logged: Logged[]; runners: ProjectionRunner[]; seen: string[] };
const test = suite<Ctx>('a poison event stops one read model, not the world', {} as Ctx);

const meta = { actor: 'test', requestId: null, time: new Date(0).toISOString(), causation: null };
const note = (text: string): NewEvent => ({ type: 'NoteTaken', data: { note: text }, metadata: meta });
const context = { actor: 'test', requestId: null, now: () => new Date('2024-02-01T00:00:00Z') };

test.before.each(async (ctx) => {
  ctx.db = await freshMigratedDatabase();
  await migrate(ctx.db.pool, fragileProjection().migrations);
  ctx.store = createPostgresEventStore(ctx.db.pool);
  ctx.logged = [];
  ctx.runners = [];
  ctx.seen = [];
});
test.after.each(async (ctx) => {
  for (const runner of ctx.runners) await runner.stop();
  await ctx.db.close();
});

const startRunner = async (ctx: Ctx, fragile: Projection = fragileProjection(), batchSize = 20) => {
  const log = (level: Logged['level']) => (obj: object, msg: string) => void ctx.logged.push({ level, msg, obj });
  const runner = createProjectionRunner({
    store: ctx.store,
    pool: ctx.db.pool,
    projections: [fragile, tracingProjection],
    liveModels: [{ name: 'seen', load: async () => undefined, apply: (events) => void ctx.seen.push(...events.map((e) => e.type)) }],
    idleMs: 10,
    batchSize,
    retryMs: { first: 40, max: 160 },
    logger: { error: log('error'), warn: log('warn'), info: log('info') },
  });
  await runner.start();
  ctx.runners.push(runner);
  return runner;
};

const notes = (pool: DatabasePool) => pool.anyFirst(sql.unsafe`SELECT note FROM fragile_notes ORDER BY note`);
const spanNames = (pool: DatabasePool) => pool.anyFirst(sql.unsafe`SELECT name FROM spans ORDER BY name`);
const sendSpan = async (store: EventStore, name: string): Promise<Position> =>
  (await ingestSpans(store, [batch('default', [spanRecord({ traceId: newTraceId(), name })])], context))!;

/** Appends a good note, the poison note, a span and another good note; returns their positions. */
const writeLogWithPoison = async (store: EventStore) => {
  const before = (await store.appendToStream('notes-1', [note('before')], 'any')).position;
  const poison = (await store.appendToStream('notes-1', [note('bad\u0000note')], 'any')).position;
  const span = await sendSpan(store, 'after the poison');
  const later = (await store.appendToStream('notes-2', [note('later')], 'any')).position;
  return { before, poison, span, later };
};

const rebuild = (ctx: Ctx, projection: Projection) =>
  rebuildProjection(ctx.db.pool, ctx.store, projection, { batchSize: 2, storeInTransaction: (tx) => createPostgresEventStore(tx) });

const until = async (check: () => boolean | Promise<boolean>, what: string, ms = 30_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

test('given a poison event, the other read model and the live models go past it; the stopped one is named with the event and the reason', async (ctx) => {
  const runner = await startRunner(ctx);
  const { before, poison, span, later } = await writeLogWithPoison(ctx.store);

  // Read-your-writes for a span does not need the stopped read model: it resolves.
  await runner.waitFor(span, 30_000);
  assert.equal(await spanNames(ctx.db.pool), ['after the poison'], 'tracing went past the poison event');
  await until(() => ctx.seen.length >= 5, 'the live model to see every event');
  assert.ok(ctx.seen.includes('SpansIngested') && ctx.seen.filter((t) => t === 'NoteTaken').length === 3);

  const fragile = runner.projections().find((p) => p.name === 'fragile')!;
  assert.equal(fragile.position, before, 'everything before the poison event is applied');
  assert.is(fragile.stop?.event.position, positionToString(poison));
  assert.is(fragile.stop?.event.type, 'NoteTaken');
  assert.is(fragile.stop?.event.stream, 'notes-1');
  assert.match(fragile.stop!.error, /0x00/);
  assert.match(fragile.stop!.error, /SQLSTATE 22021/);
  assert.equal(await notes(ctx.db.pool), ['before'], 'never skipped silently');

  // A wait that needs the stopped read model fails at once, naming it, instead of hanging.
  const started = Date.now();
  const refused = await runner.waitFor(later, 30_000).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(refused, ProjectionStoppedError);
  assert.ok(Date.now() - started < 2000, `failed fast (${Date.now() - started} ms)`);
  assert.is((refused as ProjectionStoppedError).status, 503);
  assert.match((refused as Error).message, /"fragile" read model is stopped at event \d+:\d+ \(NoteTaken\)/);

  // The checkpoint row says the same for other processes and `loupe projections status`.
  const [status] = await projectionStatus(ctx.db.pool, ctx.store, ['fragile']);
  assert.equal(status!.stop?.event, fragile.stop!.event);
  assert.is(status!.stop?.error, fragile.stop!.error);

  // Retried with backoff, logged once.
  await new Promise((r) => setTimeout(r, 600));
  const stops = ctx.logged.filter((l) => l.level === 'error' && l.msg.startsWith('projection stopped'));
  assert.is(stops.length, 1, 'one log line for the stop, however many retries');
  assert.match(stops[0]!.msg, new RegExp(`fragile stopped at event ${positionToString(poison)} \\(NoteTaken in stream notes-1`));
  assert.ok(runner.lastError() === null, 'the runner as a whole is healthy');

  // New spans keep arriving in the tracing read model.
  await runner.waitFor(await sendSpan(ctx.store, 'much later'), 30_000);
  assert.equal(await spanNames(ctx.db.pool), ['after the poison', 'much later']);
});

test('given a stopped read model, when an operator records a skip decision, it moves on, and a rebuild makes the same decision', async (ctx) => {
  const runner = await startRunner(ctx);
  const { poison, later } = await writeLogWithPoison(ctx.store);
  await until(() => runner.projections().some((p) => p.stop !== null), 'the fragile read model to stop');

  // Without a decision a rebuild stops at the same event, says which, and swaps nothing in.
  const failed = await rebuild(ctx, fragileProjection()).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(failed, RebuildStoppedError);
  assert.match((failed as Error).message, new RegExp(`event ${positionToString(poison)} \\(NoteTaken in stream notes-1`));
  assert.equal(await ctx.db.pool.anyFirst(sql.unsafe`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rebuild\\_%'`), []);

  await recordSkipDecision(ctx.store, ctx.db.pool, { projection: 'fragile', position: poison, reason: 'NUL in a note', actor: 'operator' });
  // The running runner reads the decision from the log and moves on (no restart).
  await until(() => runner.projections().every((p) => p.stop === null), 'the fragile read model to move on');
  await runner.waitFor(later, 30_000);
  assert.equal(await notes(ctx.db.pool), ['before', 'later']);
  assert.equal(
    runner.projections().map((p) => p.stop),
    [null, null],
  );
  const [status] = await projectionStatus(ctx.db.pool, ctx.store, ['fragile']);
  assert.is(status!.stop, null, 'the recorded stop is cleared');
  assert.ok(ctx.logged.some((l) => l.level === 'info' && l.msg.includes(`fragile resumed past event ${positionToString(poison)}`)));

  // Recording it again is a no-op; skipping an event already applied is refused.
  assert.is(
    (await recordSkipDecision(ctx.store, ctx.db.pool, { projection: 'fragile', position: poison, reason: null, actor: 'operator' }))
      .alreadyRecorded,
    true,
  );
  const refused = await recordSkipDecision(ctx.store, ctx.db.pool, {
    projection: 'fragile',
    position: later,
    reason: null,
    actor: 'operator',
  }).catch((e: unknown) => e);
  assert.instance(refused, SkipRefusedError);
  assert.match((refused as Error).message, /already applied/);

  // Rebuild = live, for the read model that skipped and for the one that never stopped.
  const liveNotes = await notes(ctx.db.pool);
  const liveTracing = await dumpTracing(ctx.db.pool);
  await rebuild(ctx, fragileProjection());
  await rebuild(ctx, tracingProjection);
  assert.equal(await notes(ctx.db.pool), liveNotes);
  assert.equal(await dumpTracing(ctx.db.pool), liveTracing);
});

test('given a read model that resumes far behind, it catches up on its own reads while the others stay current', async (ctx) => {
  // Slow on purpose (50 ms a batch of 5): catching up on 400 notes takes seconds, so a span seen
  // before that is done did not wait for it (robust to a shared server delaying visibility a bit).
  const base = fragileProjection();
  const slow: Projection = { ...base, apply: async (tx, events) => (await new Promise((r) => setTimeout(r, 50)), base.apply(tx, events)) };
  const runner = await startRunner(ctx, slow, 5);
  const { poison } = await writeLogWithPoison(ctx.store);
  let last = null;
  for (let i = 0; i < 40; i++)
    last = (
      await ctx.store.appendToStream(
        `notes-${i}`,
        Array.from({ length: 10 }, (_, n) => note(`n${i}-${n}`)),
        'any',
      )
    ).position;
  await runner.waitFor(await sendSpan(ctx.store, 'before the skip'), 30_000);
  assert.ok(runner.projections()[0]!.stop, 'still stopped');

  await recordSkipDecision(ctx.store, ctx.db.pool, { projection: 'fragile', position: poison, reason: null, actor: 'operator' });
  const span = await sendSpan(ctx.store, 'right after the skip');
  await runner.waitFor(span, 30_000);
  const fragile = runner.projections()[0]!;
  assert.is(fragile.stop, null, 'resumed');
  assert.ok(
    comparePosition(fragile.position, last!) < 0,
    'the span did not wait for the 400 notes the resumed read model still had to apply',
  );
  await runner.waitFor(span, 30_000);
  await until(async () => (await notes(ctx.db.pool)).length === 402, 'the resumed read model to catch up', 30_000);
});

test('given a stop recorded before a restart, a fixed read model resumes by itself at start and the record is cleared', async (ctx) => {
  const first = await startRunner(ctx);
  const { poison, later } = await writeLogWithPoison(ctx.store);
  await until(() => first.projections().some((p) => p.stop !== null), 'the fragile read model to stop');
  await first.stop();

  const fixed = await startRunner(ctx, fragileProjection({ strip: true }));
  await fixed.waitFor(later, 30_000);
  assert.equal(await notes(ctx.db.pool), ['badnote', 'before', 'later']);
  assert.ok(
    ctx.logged.some((l) => l.level === 'warn' && l.msg.includes(`trying again: fragile stopped at event ${positionToString(poison)}`)),
  );
  assert.ok(ctx.logged.some((l) => l.level === 'info' && l.msg.includes('fragile resumed')));
  const [status] = await projectionStatus(ctx.db.pool, ctx.store, ['fragile']);
  assert.is(status!.stop, null);
});

test('given a failure that goes away (a lock, a full disk), the read model resumes on its own after a backoff', async (ctx) => {
  // Fails with all read models together, alone, and on the event alone: then it stops; next try works.
  let failuresLeft = 3;
  const base = fragileProjection();
  const flaky: Projection = {
    ...base,
    apply: async (tx, events) => {
      if (events.some((e) => (e.data as { note?: string }).note === 'flaky') && failuresLeft-- > 0) {
        await tx.query(sql.unsafe`SELECT 1 / 0`);
      }
      await base.apply(tx, events);
    },
  };
  const runner = await startRunner(ctx, flaky);
  const { position } = await ctx.store.appendToStream('notes-1', [note('flaky')], 'any');
  await runner.waitFor(position, 30_000).catch(() => undefined);
  await until(async () => (await notes(ctx.db.pool)).includes('flaky'), 'the note to be applied after the retries');
  assert.is(ctx.logged.filter((l) => l.msg.startsWith('projection stopped')).length, 1);
  assert.match(ctx.logged.find((l) => l.msg.startsWith('projection stopped'))!.msg, /division by zero/);
  await until(() => runner.projections().every((p) => p.stop === null), 'the stop to clear');
});

test('a lost database connection is not blamed on the event being applied (Postgres)', async (ctx) => {
  if (!ctx.db.url) return; // PGlite is in-process: there is no connection to lose.
  let kills = 1;
  const base = fragileProjection();
  const cut: Projection = {
    ...base,
    apply: async (tx, events) => {
      if (kills-- > 0) await tx.query(sql.unsafe`SELECT pg_terminate_backend(pg_backend_pid())`);
      await base.apply(tx, events);
    },
  };
  const runner = await startRunner(ctx, cut);
  const { position } = await ctx.store.appendToStream('notes-1', [note('survives')], 'any');
  await runner.waitFor(position, 30_000);
  assert.equal(await notes(ctx.db.pool), ['survives']);
  assert.equal(
    runner.projections().map((p) => p.stop),
    [null, null],
    'nothing stopped',
  );
  assert.is(ctx.logged.filter((l) => l.msg.startsWith('projection stopped')).length, 0);
});

test('a scratch schema and checkpoint row left by a killed rebuild are dropped at the next start and the next rebuild', async (ctx) => {
  const leftovers = async () => ({
    schemas: await ctx.db.pool.anyFirst(sql.unsafe`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rebuild\\_%' ORDER BY 1`),
    rows: await ctx.db.pool.anyFirst(sql.unsafe`SELECT name FROM projection_checkpoints WHERE name LIKE '%@%' ORDER BY 1`),
  });
  // What `loupe projections rebuild` leaves when SIGKILLed mid-replay: its schema, tables and checkpoint row.
  const killedRebuild = async (schema: string) => {
    await ctx.db.pool.query(sql.unsafe`CREATE SCHEMA ${sql.identifier([schema])}`);
    await ctx.db.pool.query(sql.unsafe`CREATE TABLE ${sql.identifier([schema, 'fragile_notes'])} (event_id uuid PRIMARY KEY, note text)`);
    await ctx.db.pool.query(sql.unsafe`INSERT INTO projection_checkpoints (name, tx, seq) VALUES (${`fragile@${schema}`}, 1, 1)`);
  };
  await killedRebuild('rebuild_fragile_0badf00d');
  assert.equal((await leftovers()).schemas, ['rebuild_fragile_0badf00d']);
  const runner = await startRunner(ctx);
  assert.equal(await leftovers(), { schemas: [], rows: [] }, 'gone at start');

  await killedRebuild('rebuild_fragile_deadbeef');
  // Visible to readers first (on a shared Postgres another database's transaction may delay it).
  await runner.waitFor((await ctx.store.appendToStream('notes-1', [note('fine')], 'any')).position, 30_000);
  await rebuild(ctx, fragileProjection());
  assert.equal(await leftovers(), { schemas: [], rows: [] }, 'gone after the next rebuild');
  assert.equal(await notes(ctx.db.pool), ['fine']);
});

test('a rebuild still running in another process keeps its scratch schema (Postgres: its advisory lock is held)', async (ctx) => {
  if (!ctx.db.url) return; // PGlite is one process and one session: no rebuild runs beside a cleanup there.
  const other = new pg.Client({ connectionString: ctx.db.url });
  await other.connect();
  try {
    const schema = 'rebuild_fragile_a11ve000';
    await other.query(`SELECT pg_advisory_lock(${REBUILD_LOCK_CLASS}, hashtext('${schema}'))`);
    await other.query(`CREATE SCHEMA ${schema}`);
    assert.equal(await cleanRebuildLeftovers(ctx.db.pool), []);
    await other.query(`SELECT pg_advisory_unlock(${REBUILD_LOCK_CLASS}, hashtext('${schema}'))`);
    assert.equal(await cleanRebuildLeftovers(ctx.db.pool), [schema], 'dropped once its owner is gone');
  } finally {
    await other.end();
  }
});

test.run();
