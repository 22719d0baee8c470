import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'slonik';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '../../../ops/database/openDatabase.ts';
import { startWalCheckpoints, walSinceCheckpoint } from '../../../ops/database/walCheckpoints.ts';
import { createLogger } from '../../../ops/logger.ts';

const MB = 1024 * 1024;
const walBytes = async (dataDir: string) => {
  let total = 0;
  for (const name of await readdir(join(dataDir, 'pg_wal')))
    if (/^[0-9A-F]{24}$/.test(name)) total += (await stat(join(dataDir, 'pg_wal', name))).size;
  return total;
};

test('embedded PGlite: with the checkpoints, pg_wal stops growing under steady writes and deletes', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'loupe-wal-'));
  const db = await openDatabase({ pgliteDataDir: dir });
  const threshold = 16 * MB;
  const stop = startWalCheckpoints(db.pool, createLogger('silent'), { checkEveryMs: 20, maxWalBytes: threshold });
  try {
    await db.pool.query(sql.unsafe`CREATE TABLE wal_probe (x text)`);
    // One round: ~12 MB of rows written and deleted (what retention does to the read models), ~25 MB of WAL.
    const round = async () => {
      await db.pool.query(sql.unsafe`INSERT INTO wal_probe SELECT repeat(md5(random()::text), 60) FROM generate_series(1, 6000)`);
      await db.pool.query(sql.unsafe`DELETE FROM wal_probe`);
      await db.pool.query(sql.unsafe`VACUUM wal_probe`);
      // The loop has seen the WAL and checkpointed (it polls; no timing is asserted).
      while ((await walSinceCheckpoint(db.pool)) >= threshold) await new Promise((r) => setTimeout(r, 20));
    };
    for (let i = 0; i < 3; i++) await round();
    const settled = await walBytes(dir);
    const sizes: number[] = [];
    for (let i = 0; i < 5; i++) {
      await round();
      sizes.push(await walBytes(dir));
    }
    // ~125 MB more WAL written; without checkpoints pg_wal would hold all of it (up to max_wal_size, 1 GB).
    assert.ok(
      Math.max(...sizes) <= settled + 2 * 16 * MB,
      `pg_wal ${settled / MB} MB after 3 rounds, then ${sizes.map((s) => s / MB).join(', ')} MB`,
    );
    console.log(`pg_wal ${settled / MB} MB after 3 rounds, then ${sizes.map((s) => s / MB).join(', ')} MB`);
  } finally {
    stop();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
