import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { createProject } from '../../../domain/projects/projectCommands.ts';
import { loadProject } from '../../../domain/projects/loadProject.ts';
import { deleteTelemetry } from '../../../domain/tracing/deleteTelemetry.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { retentionReactor } from '../../../projections/retention/retentionReactor.ts';
import { rebuildProjection } from '../../../projections/rebuildProjection.ts';
import { indexSpanSearch } from '../../../projections/tracing/indexSpanSearch.ts';
import { partitionName, weekOf } from '../../../projections/tracing/spanPartitions.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { attrs, batch, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { context, dumpTracing, tracingHarness, type Harness } from './tracingHarness.ts';

const test = suite<{ h: Harness }>('tracing: spans partitioned by week', {} as { h: Harness });
test.before.each(async (ctx) => {
  ctx.h = await tracingHarness();
});
test.after.each(async (ctx) => {
  await ctx.h.db.close();
});

const DAY = 24 * 3600 * 1000;
// Relative to the clock: the projection creates the weeks around now (spanPartitions.ts).
const now = Date.now();
const oldStart = now - 20 * DAY;
const oldWeek = weekOf(oldStart);
const text = 'lorem ipsum dolor '.repeat(250);

/** `traces` traces of 5 spans, each with 4.5 kB of input, started at `startMs` (a second apart). */
const ingestTraces = async (h: Harness, project: string, traces: number, startMs: number): Promise<string[]> => {
  const ids = Array.from({ length: traces }, () => newTraceId());
  for (let from = 0; from < traces; from += 50) {
    const spans = ids.slice(from, from + 50).flatMap((traceId, i) =>
      Array.from({ length: 5 }, (_, s) =>
        spanRecord({
          traceId,
          startTimeUnixNano: nanos(new Date(startMs + (from + i) * 1000 + s).toISOString()),
          endTimeUnixNano: nanos(new Date(startMs + (from + i) * 1000 + s + 500).toISOString()),
          attributes: attrs({ 'input.value': `${text} ${traceId}`, 'output.value': `answer ${s}` }),
        }),
      ),
    );
    await ingestSpans(h.store, [batch(project, spans)], context);
  }
  return ids;
};

const tables = async (h: Harness) =>
  new Set(
    await h.db.pool.anyFirst(sql.type(z.object({ relname: z.string() }))`
      SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r'`),
  );

/** What the spans and their words take on disk, every partition with its indexes and TOAST. */
const spanBytes = async (h: Harness) =>
  Number(
    await h.db.pool.oneFirst(sql.type(z.object({ bytes: z.string() }))`
      SELECT sum(pg_total_relation_size(relid))::text AS bytes
      FROM (SELECT relid FROM pg_partition_tree('spans') UNION ALL SELECT relid FROM pg_partition_tree('span_search')) t`),
  );

const partitionBytes = async (h: Harness, week: number) =>
  Number(
    await h.db.pool.oneFirst(sql.type(z.object({ bytes: z.string() }))`
      SELECT (pg_total_relation_size(${partitionName('spans', week)}::regclass)
        + pg_total_relation_size(${partitionName('span_search', week)}::regclass))::text AS bytes`),
  );

const count = async (h: Harness, query: ReturnType<typeof sql.unsafe>) => Number(await h.db.pool.oneFirst(query));

const indexAll = async (h: Harness) => {
  while ((await indexSpanSearch(h.db.pool, 10_000)).more);
};

test('given spans of three weeks ago and of now, when a 7-day policy runs, then the old week is dropped (spans and words), the size falls by it, the rest stays, and a rebuild gives the same rows', async ({
  h,
}) => {
  await createProject(h.store, { name: 'shop', description: null, gradientStartColor: '#000000' }, context);
  const old = await ingestTraces(h, 'shop', 200, oldStart);
  const recent = await ingestTraces(h, 'shop', 20, now - 3600_000);
  await h.project();
  await indexAll(h);
  assert.ok((await tables(h)).has(partitionName('spans', oldWeek)), 'a late span created its week');
  assert.is(await count(h, sql.unsafe`SELECT count(*) FROM spans_default`), 0, 'nothing went to the default partition');
  const before = await spanBytes(h);
  const week = await partitionBytes(h, oldWeek);
  assert.ok(week > 1_000_000, `the old week holds its spans (${week} bytes)`);

  // The retention reactor's scheduled run, as the server issues it (the default policy: 7 days).
  const reactor = retentionReactor({ store: h.store, days: 7, everyMs: 3_600_000 });
  const commands = await reactor.schedule!.react({ db: h.db.pool, now: new Date(now) });
  for (const command of commands) await reactor.issue(command);
  await h.project();

  const after = new Set(await tables(h));
  assert.not.ok(after.has(partitionName('spans', oldWeek)), 'the old week of spans is dropped');
  assert.not.ok(after.has(partitionName('span_search', oldWeek)), 'and of their words');
  assert.ok(after.has(partitionName('spans', weekOf(now))), 'the current week stays');
  const fallen = before - (await spanBytes(h));
  assert.ok(fallen >= week * 0.95, `the spans' size fell by the week's (${fallen} of ${week} bytes)`);
  assert.is(await count(h, sql.unsafe`SELECT count(*) FROM spans`), recent.length * 5, 'the recent spans stay');
  assert.is(await count(h, sql.unsafe`SELECT count(*) FROM span_search`), recent.length * 5, 'with their words');
  assert.is(await count(h, sql.unsafe`SELECT count(*) FROM traces`), recent.length);
  // The log is still the source of truth: each expired span is noted for removal from it, as before.
  assert.is(
    await count(h, sql.unsafe`SELECT count(*) FROM tracing_erasures`),
    old.length * 5,
    'every expired span is noted for the erasure reactor',
  );

  const live = await dumpTracing(h.db.pool);
  await rebuildProjection(h.db.pool, h.store, tracingProjection, { batchSize: 7, storeInTransaction: h.storeInTransaction });
  assert.equal(await dumpTracing(h.db.pool), { ...live, span_search: [] }, 'rebuild = live (the indexer fills the words again)');
  assert.ok((await tables(h)).has(partitionName('spans', weekOf(now))), "the rebuilt table's weeks moved with it");
  await indexAll(h);
  assert.equal(await dumpTracing(h.db.pool), live);
});

test('a week still holding a live trace is not dropped: the expired rows are deleted from it, the live ones stay', async ({ h }) => {
  await createProject(h.store, { name: 'shop', description: null, gradientStartColor: '#000000' }, context);
  const old = await ingestTraces(h, 'shop', 10, oldStart);
  await h.project();
  await indexAll(h);
  const loaded = await loadProject(h.store, 'shop');
  if (loaded.status !== 'active') throw new Error('no project');
  await deleteTelemetry(
    h.store,
    'shop',
    {
      type: 'ExpireTraces',
      projectId: loaded.projectId,
      policyId: 'default',
      startedBefore: new Date(now - 7 * DAY).toISOString(),
      maxTraces: null,
      traceIds: old.slice(0, 6),
    },
    context,
  );
  await h.project();
  assert.ok((await tables(h)).has(partitionName('spans', oldWeek)), 'the week stays');
  assert.is(await count(h, sql.unsafe`SELECT count(*) FROM spans`), 4 * 5);
  assert.is(await count(h, sql.unsafe`SELECT count(*) FROM span_search`), 4 * 5, 'the expired spans took their words');
});

test('queries bounded in time read only their weeks (EXPLAIN)', async ({ h }) => {
  await createProject(h.store, { name: 'shop', description: null, gradientStartColor: '#000000' }, context);
  await ingestTraces(h, 'shop', 5, oldStart);
  await ingestTraces(h, 'shop', 5, now - 3600_000);
  await h.project();
  const plan = (
    await h.db.pool.anyFirst(sql.type(z.object({ 'QUERY PLAN': z.string() }))`
      EXPLAIN SELECT id FROM spans WHERE project_id = 1 AND start_time >= ${new Date(now - 2 * DAY).toISOString()}::timestamptz
        AND start_time < ${new Date(now).toISOString()}::timestamptz ORDER BY id DESC LIMIT 100`)
  ).join('\n');
  assert.not.match(plan, partitionName('spans', oldWeek), `the old week is pruned:\n${plan}`);
  assert.not.match(plan, 'spans_default', 'and the default partition');
});

test.run();
