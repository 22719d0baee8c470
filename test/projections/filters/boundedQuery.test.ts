import { sql } from 'slonik';
import { z } from 'zod';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { boundedQuery, FilterTimeoutError } from '../../../projections/filters/boundedQuery.ts';
import { freshDatabase, type TestDatabase } from '../../support/database.ts';

const test = suite<{ db: TestDatabase }>('a list query with user conditions', {} as { db: TestDatabase });
test.before(async (ctx) => {
  ctx.db = await freshDatabase();
});
test.after(async (ctx) => {
  await ctx.db.close();
});

const plannerSettings = z.object({ indexscan: z.string(), timeout: z.string() });

test('without user conditions it runs as written, with no timeout of its own', async ({ db }) => {
  const seen = await boundedQuery(db.pool, [], (q) =>
    q.one(
      sql.type(plannerSettings)`SELECT current_setting('enable_indexscan') AS indexscan, current_setting('statement_timeout') AS timeout`,
    ),
  );
  assert.is(seen.indexscan, 'on');
});

test('a first plan that runs out of its short time is tried again on the indexes alone, and answers', async ({ db }) => {
  if (db.kind !== 'postgres') return; // PGlite has no timer to cancel a statement with
  const tries: { indexscan: string; timeout: string }[] = [];
  const answer = await boundedQuery(db.pool, ['a user condition'], async (q) => {
    const settings = await q.one(
      sql.type(plannerSettings)`SELECT current_setting('enable_indexscan') AS indexscan, current_setting('statement_timeout') AS timeout`,
    );
    tries.push(settings);
    // Given the planner's plan is slow (as a walk over every span for a rare word is)
    if (settings.indexscan === 'on') await q.query(sql.unsafe`SELECT pg_sleep(1)`);
    return q.oneFirst(sql.unsafe`SELECT 42`);
  });
  assert.is(answer, 42);
  assert.equal(
    tries.map((t) => t.indexscan),
    ['on', 'off'],
  );
  assert.equal(
    tries.map((t) => t.timeout),
    ['150ms', '10s'],
  );
});

test('a query slow on every plan is stopped after the full timeout with the filter_timeout refusal', async ({ db }) => {
  if (db.kind !== 'postgres') return;
  try {
    await boundedQuery(db.pool, ['a user condition'], (q) => q.query(sql.unsafe`SELECT pg_sleep(11)`));
    assert.unreachable('the query must be stopped');
  } catch (error) {
    assert.instance(error, FilterTimeoutError);
    assert.is((error as FilterTimeoutError).status, 422);
  }
});

test.run();
