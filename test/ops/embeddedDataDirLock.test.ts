import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServerProcess } from '../../ops/bench/serverProcess.ts';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { LOCK_FILE } from '../../ops/database/dataDirLock.ts';
import { openDatabase, pgliteDataDir } from '../../ops/database/openDatabase.ts';
import { allMigrations } from '../../ops/database/allMigrations.ts';
import { migrate } from '../../projections/migrate.ts';
import { runCli, spawnCli } from '../support/cliProcess.ts';

/**
 * Embedded PGlite has no lock of its own: a CLI command opening the directory `npm start` holds
 * read a partial log or crashed inside PGlite. Every opener (the server, each command) takes the
 * directory's lock file; a second one refuses, naming the holder, and exits non-zero; a lock left
 * by a killed process is taken over. Real processes throughout, as an operator runs them.
 */
const test = suite<{ dir: string }>('one process at a time on an embedded data directory', { dir: '' });
test.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'loupe-lock-'));
});
test.after.each(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

const EXIT_IN_USE = 75;

test('beside a running server, every command that opens the database refuses naming the server, and works once it stops', async ({
  dir,
}) => {
  const env = { SERVICE_WORKING_DIR: dir };
  const server = await startServerProcess({ env });
  try {
    const commands: [string[], string?][] = [
      [['events', 'export']],
      [['projections', 'rebuild']],
      [['projections', 'status']],
      [['db', 'migrate']],
      [['audit', 'verify']],
      [['users', 'set-password', 'admin@localhost'], 'a-new-password-123\n'],
    ];
    for (const [args, stdin] of commands) {
      const result = await runCli(env, args, stdin);
      assert.is(result.code, EXIT_IN_USE, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, `in use by another process: pid ${server.pid} (loupe serve`);
      assert.is(result.stdout, '', `${args.join(' ')} wrote nothing`);
      assert.not.match(result.stderr, /\n\s+at /, 'a message, not a stack trace');
    }
    // A second server on the same directory refuses too.
    const second = await runCli({ ...env, SERVICE_PORT: '0', SERVICE_GRPC_PORT: '0', SERVICE_OTLP_HTTP_PORT: '0' }, ['serve']);
    assert.is(second.code, EXIT_IN_USE, second.stderr);
    assert.is((await fetch(`${server.url}/healthz`)).status, 200, 'the running server is unharmed');
  } finally {
    await server.stop(10_000);
  }
  assert.not.ok(existsSync(join(pgliteDataDir(dir), LOCK_FILE)), 'a server that stops gives the directory back');
  const exported = await runCli(env, ['events', 'export']);
  assert.is(exported.code, 0, exported.stderr);
  assert.ok(exported.stdout.split('\n').filter(Boolean).length > 0, 'the whole log once nobody else holds it');
});

test('a lock left by a process that is gone (killed) is taken over', async ({ dir }) => {
  const env = { SERVICE_WORKING_DIR: dir };
  assert.is((await runCli(env, ['db', 'migrate'])).code, 0);
  const gone = spawn(process.execPath, ['-e', '']);
  const pid = gone.pid!;
  await new Promise((resolve) => gone.on('exit', resolve));
  const lock = join(pgliteDataDir(dir), LOCK_FILE);
  writeFileSync(lock, JSON.stringify({ pid, command: 'loupe serve', since: '2026-01-01T00:00:00.000Z' }));
  const result = await runCli(env, ['projections', 'status']);
  assert.is(result.code, 0, result.stderr);
  assert.not.ok(existsSync(lock), 'taken over, then given back');
  // A live holder is not taken over, whatever it wrote.
  writeFileSync(lock, JSON.stringify({ pid: process.pid, command: 'a test holding it', since: '2026-01-01T00:00:00.000Z' }));
  const refused = await runCli(env, ['projections', 'status']);
  assert.is(refused.code, EXIT_IN_USE, refused.stderr);
  assert.match(refused.stderr, `pid ${process.pid} (a test holding it`);
  assert.is(JSON.parse(readFileSync(lock, 'utf8')).pid, process.pid, 'left in place');
});

test('events export | head -1: the export stops and exits as soon as the reader is gone', async ({ dir }) => {
  const env = { SERVICE_WORKING_DIR: dir };
  // A log much larger than a pipe's buffer, so the export is blocked writing when the reader leaves.
  const db = await openDatabase({ pgliteDataDir: pgliteDataDir(dir) });
  try {
    await migrate(db.pool, allMigrations());
    const store = createPostgresEventStore(db.pool);
    const meta = { actor: 'test', requestId: null, time: '2026-01-01T00:00:00.000Z', causation: null };
    for (let i = 0; i < 40; i++)
      await store.appendToStream(`big-${i}`, [{ type: 'Noted', data: { text: 'x'.repeat(100_000) }, metadata: meta }], 'no_stream');
  } finally {
    await db.close();
  }
  const child = spawnCli(env, ['events', 'export']);
  child.stdin.end();
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Like head -1: read until the first line, then close the pipe.
  await new Promise<void>((resolve) => {
    let seen = '';
    child.stdout.on('data', (chunk) => {
      seen += chunk;
      if (seen.includes('\n')) {
        child.stdout.destroy();
        resolve();
      }
    });
  });
  const left = Date.now();
  const code = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 20_000))]);
  if (code === 'still running') child.kill('SIGKILL');
  assert.is(code, 0, `export after the reader left: ${code} ${stderr}`);
  assert.not.match(stderr, /EPIPE|\n\s+at /);
  assert.ok(Date.now() - left < 20_000);
  assert.not.ok(existsSync(join(pgliteDataDir(dir), LOCK_FILE)), 'and gave the directory back');
});

test.run();
