import { sql, type CommonQueryMethods } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { boundedQuery, FilterTimeoutError } from '../../../projections/filters/boundedQuery.ts';
import { attrs, batch, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer }>('a list query with user conditions', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  // Given 200 spans that all speak of a refund, and statistics on the text index
  const spans = Array.from({ length: 200 }, (_, i) =>
    spanRecord({ traceId: newTraceId(), attributes: attrs({ 'input.value': `where is my refund, order ${i}` }) }),
  );
  const position = await ingestSpans(ctx.server.store, [batch('bounded', spans)], { actor: 'test', requestId: null });
  await ctx.server.runner.waitFor(position!, 60_000);
  await ctx.server.spanSearch.catchUp();
  await ctx.server.pool.query(sql.unsafe`ANALYZE span_search`);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const indexScans = (db: CommonQueryMethods) =>
  db.oneFirst(sql.type(z.object({ on: z.string() }))`SELECT current_setting('enable_indexscan') AS on`);

test('without user conditions the query runs as written', async ({ server }) => {
  assert.is(await boundedQuery(server.pool, [], { search: null }, indexScans), 'on');
});

test('a search for a word the statistics track (common) leaves the plan to the planner', async ({ server }) => {
  assert.is(await boundedQuery(server.pool, ['search'], { search: 'refund' }, indexScans), 'on');
});

test('a search holding a word the statistics do not track (rare) is answered from the text index', async ({ server }) => {
  assert.is(await boundedQuery(server.pool, ['search'], { search: 'refund needle7x3q' }, indexScans), 'off');
  // and only inside that query's transaction
  assert.is(await boundedQuery(server.pool, [], { search: null }, indexScans), 'on');
});

test('a filter without a search leaves the plan to the planner', async ({ server }) => {
  assert.is(await boundedQuery(server.pool, ['a filter'], { search: null }, indexScans), 'on');
});

test('a query that runs longer than the limit is stopped with the filter_timeout refusal', async ({ server }) => {
  if (server.database.kind !== 'postgres') return; // PGlite has no timer to cancel a statement with
  try {
    await boundedQuery(server.pool, ['a filter'], { search: null }, (q) => q.query(sql.unsafe`SELECT pg_sleep(11)`));
    assert.unreachable('the query must be stopped');
  } catch (error) {
    assert.instance(error, FilterTimeoutError);
    assert.is((error as FilterTimeoutError).status, 422);
  }
});

test.run();
