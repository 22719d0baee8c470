import { sql } from 'slonik';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initPgliteDataDir } from '../../../ops/database/initPgliteDataDir.ts';
import { openDatabase } from '../../../ops/database/openDatabase.ts';

let dir: string;
test.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loupe-initdb-'));
});
test.after.each(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('given an empty directory, when initialised (in a child process), then the server opens it and it persists', async () => {
  const dataDir = join(dir, 'pgdata');
  const db = await openDatabase({ pgliteDataDir: dataDir });
  try {
    assert.ok(existsSync(join(dataDir, 'PG_VERSION')));
    await db.pool.query(sql.unsafe`CREATE TABLE kept (n int)`);
    await db.pool.query(sql.unsafe`INSERT INTO kept VALUES (42)`);
  } finally {
    await db.close();
  }
  const again = await openDatabase({ pgliteDataDir: dataDir });
  try {
    assert.is(await again.pool.oneFirst(sql.unsafe`SELECT n FROM kept`), 42);
  } finally {
    await again.close();
  }
});

test('given an initialised directory, then it is left alone', async () => {
  const dataDir = join(dir, 'pgdata');
  await initPgliteDataDir(dataDir);
  const before = statSync(join(dataDir, 'PG_VERSION')).mtimeMs;
  await initPgliteDataDir(dataDir);
  assert.is(statSync(join(dataDir, 'PG_VERSION')).mtimeMs, before);
});

test('given a path that cannot be a data directory, then the error says which and why', async () => {
  const file = join(dir, 'a-file');
  writeFileSync(file, 'not a directory');
  try {
    await initPgliteDataDir(join(file, 'pgdata'));
    assert.unreachable('initialised under a file');
  } catch (error) {
    assert.match((error as Error).message, `could not initialise the embedded database in ${join(file, 'pgdata')}: `);
    assert.match((error as Error).message, /ENOTDIR|not a directory/i);
  }
});

test.run();
