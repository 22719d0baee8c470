import { sql } from 'slonik';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startAnalyzeLoop } from '../../ops/analyzeLoop.ts';
import { createLogger } from '../../ops/logger.ts';
import { freshMigratedDatabase } from '../support/database.ts';

test('the analyze loop gives the planner statistics (PGlite never autovacuums)', async () => {
  const db = await freshMigratedDatabase();
  try {
    await db.pool.query(sql.unsafe`CREATE TABLE stats_probe (n int)`);
    await db.pool.query(sql.unsafe`INSERT INTO stats_probe SELECT generate_series(1, 5000)`);
    const tuples = async () =>
      Number(await db.pool.oneFirst(sql.unsafe`SELECT reltuples::int FROM pg_class WHERE relname = 'stats_probe'`));
    assert.ok((await tuples()) < 5000, 'no statistics before');
    const stop = startAnalyzeLoop(db.pool, createLogger('silent'), { firstAfterMs: 10, intervalMs: 60_000 });
    const deadline = Date.now() + 10_000;
    while ((await tuples()) !== 5000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    stop();
    assert.is(await tuples(), 5000);
  } finally {
    await db.close();
  }
});

test.run();
