import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, UniqueIntegrityConstraintViolationError } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { ingestSpans } from '../../domain/tracing/ingestSpans.ts';
import { allMigrations } from '../../ops/database/allMigrations.ts';
import { type Database, openDatabase } from '../../ops/database/openDatabase.ts';
import { startPgliteInWorker } from '../../ops/database/pgliteInWorker.ts';
import { migrate } from '../../projections/migrate.ts';
import { createProjectionRunner } from '../../projections/projectionRunner.ts';
import { tracingProjection } from '../../projections/tracing/tracingProjection.ts';
import { batch, newTraceId, spanRecord } from '../support/spanFixtures.ts';

/**
 * The server's embedded PGlite runs in a worker thread (ops/database/pgliteInWorker.ts): the
 * same slonik queries must give the same answers as in-thread PGlite (types parsed by slonik's
 * parsers, errors mapped to slonik's, COPY, transactions), and a long statement must leave the
 * server's own thread free.
 */
type Ctx = { dir: string; db: Database };
const test = suite<Ctx>('embedded PGlite in a worker thread', {} as Ctx);
test.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'loupe-pglite-worker-'));
  ctx.db = await openDatabase({ pgliteDataDir: join(ctx.dir, 'pgdata') });
  await migrate(ctx.db.pool, allMigrations());
});
test.after(async (ctx) => {
  await ctx.db.close();
  await rm(ctx.dir, { recursive: true, force: true });
});

test('typed values come back parsed as on in-thread PGlite, and a broken constraint is slonik’s error', async ({ db }) => {
  const row = await db.pool.one(
    sql.type(
      z.object({ n: z.bigint(), t: z.number(), j: z.object({ a: z.array(z.number()) }), arr: z.array(z.bigint()), nothing: z.null() }),
    )`SELECT 9007199254740993::int8 AS n, '2024-01-01T00:00:00Z'::timestamptz AS t, '{"a":[1,2]}'::jsonb AS j,
         ARRAY[1,2]::int8[] AS arr, NULL::text AS nothing`,
  );
  assert.equal(row, { n: 9007199254740993n, t: Date.parse('2024-01-01T00:00:00Z'), j: { a: [1, 2] }, arr: [1n, 2n], nothing: null });
  await db.pool.query(sql.unsafe`CREATE TABLE once (k text PRIMARY KEY)`);
  await db.pool.query(sql.unsafe`INSERT INTO once VALUES ('a')`);
  try {
    await db.pool.query(sql.unsafe`INSERT INTO once VALUES ('a')`);
    assert.unreachable('the duplicate was inserted');
  } catch (error) {
    assert.instance(error, UniqueIntegrityConstraintViolationError);
  }
  await db.pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO once VALUES ('b')`);
    await tx.query(sql.unsafe`SAVEPOINT s`);
  });
  await db.pool
    .transaction(async (tx) => {
      await tx.query(sql.unsafe`INSERT INTO once VALUES ('c')`);
      throw new Error('roll back');
    })
    .catch(() => undefined);
  assert.equal(await db.pool.anyFirst(sql.type(z.object({ k: z.string() }))`SELECT k FROM once ORDER BY k`), ['a', 'b']);
});

test('spans ingested into the log are projected with COPY and listed', async ({ db }) => {
  const store = createPostgresEventStore(db.pool);
  const traceId = newTraceId();
  const spans = Array.from({ length: 300 }, (_, i) => spanRecord({ traceId, name: `s${i}` }));
  await ingestSpans(store, [batch('worker', spans)], { actor: 'test', requestId: null });
  await createProjectionRunner({ store, pool: db.pool, projections: [tracingProjection] }).catchUp();
  assert.is(
    await db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM spans WHERE trace_id = ${traceId}`),
    300,
  );
});

test('while a long statement runs, the server’s thread keeps turning: a timer set after it started fires before it ends', async ({
  db,
}) => {
  const events: string[] = [];
  const long = db.pool.query(sql.unsafe`SELECT count(*) FROM generate_series(1, 20000000)`).then(() => events.push('statement done'));
  await new Promise((resolve) => setTimeout(resolve, 20));
  events.push('timer');
  await long;
  assert.equal(events, ['timer', 'statement done']);
});

test('a database that cannot start is an error for the caller, not a hang; a closed one is not reported lost', async ({ dir, db }) => {
  const file = join(dir, 'not-a-directory');
  await writeFile(file, 'x');
  const started = await startPgliteInWorker({ dataDir: join(file, 'pgdata'), startParams: [] }).then(
    () => 'started',
    (error: Error) => error,
  );
  assert.instance(started, Error);
  const lost = await Promise.race([db.lost, new Promise((r) => setTimeout(() => r('running'), 50))]);
  assert.is(lost, 'running');
});

test.run();
