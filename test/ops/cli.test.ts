import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TYPESCRIPT_NODE_FLAGS } from '../../ops/typescriptNodeFlags.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const launcher = fileURLToPath(new URL('../../bin/loupe.js', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI as a user would (through the npm bin launcher), with no SERVICE_* inherited. */
const loupe = (args: string[], env: Record<string, string> = {}, entry: string[] = [launcher]) =>
  new Promise<Result>((resolve, reject) => {
    const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SERVICE_')));
    const child = spawn(process.execPath, [...entry, ...args], {
      cwd: root,
      env: { ...base, ...env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });

test('--version prints the version from package.json', async () => {
  for (const flag of ['--version', '-v']) {
    const result = await loupe([flag]);
    assert.is(result.code, 0, result.stderr);
    assert.is(result.stdout.trim(), version);
  }
});

test('--help lists every command and exits 0, even with a broken configuration', async () => {
  const result = await loupe(['--help'], { SERVICE_PORT: 'abc' });
  assert.is(result.code, 0, result.stderr);
  for (const command of [
    'serve',
    'db migrate',
    'projections status',
    'projections rebuild [NAME]',
    'events export [--stream S] [--type T] [--from ISO] [--to ISO]',
    'users set-password EMAIL',
  ]) {
    assert.ok(result.stdout.includes(`  ${command}\n`), `help lists "${command}"`);
  }
});

test('help after a command shows that command', async () => {
  const result = await loupe(['events', 'export', '--help']);
  assert.is(result.code, 0, result.stderr);
  assert.ok(result.stdout.startsWith('usage: loupe events export [--stream S]'), result.stdout);
});

test('an unknown command prints a message and the usage, exit 2', async () => {
  const result = await loupe(['frobnicate']);
  assert.is(result.code, 2);
  assert.ok(result.stderr.includes('unknown command "frobnicate"'), result.stderr);
  assert.ok(result.stderr.includes('usage: loupe [command] [options]'), result.stderr);
  assert.is(result.stdout, '');
});

test('malformed command arguments exit 2 with the command usage', async () => {
  const cases: Array<[string[], string]> = [
    [['projections'], '"projections" needs one of: status, rebuild'],
    [['db', 'migrate', 'now'], 'db migrate takes no arguments (got 1)'],
    [['users', 'set-password'], 'users set-password expects EMAIL (got 0)'],
    [['events', 'export', '--bogus'], "Unknown option '--bogus'"],
    [['events', 'export', '--from', 'yesterday'], '--from must be an ISO 8601 date or time'],
    [['--bogus'], "serve: Unknown option '--bogus'"],
  ];
  for (const [args, message] of cases) {
    const result = await loupe(args, { SERVICE_PORT: 'abc' });
    assert.is(result.code, 2, args.join(' '));
    assert.ok(result.stderr.includes(message), `${args.join(' ')}: ${result.stderr}`);
    assert.not.ok(result.stderr.includes('SERVICE_PORT'), 'arguments are checked before the configuration');
  }
});

test('SERVICE_PORT=abc stops serve (also the default command) naming the variable, exit 2', async () => {
  for (const args of [[], ['serve']]) {
    const result = await loupe(args, { SERVICE_PORT: 'abc' });
    assert.is(result.code, 2, result.stderr);
    assert.ok(
      result.stderr.includes('SERVICE_PORT: must be an integer from 1 to 65535 (or 0 for any free port) (got "abc")'),
      result.stderr,
    );
  }
});

test('every configuration problem is printed on its own line, secrets not shown', async () => {
  const result = await loupe(['db', 'migrate'], {
    SERVICE_PORT: 'abc',
    SERVICE_ENABLE_AUTH: 'true',
    SERVICE_SECRET: 'tooshort',
  });
  assert.is(result.code, 2);
  const lines = result.stderr.trim().split('\n');
  assert.ok(
    lines.some((line) => line.startsWith('SERVICE_PORT: ')),
    result.stderr,
  );
  assert.ok(
    lines.some((line) => line.startsWith('SERVICE_SECRET: must be at least 32 characters')),
    result.stderr,
  );
  assert.not.ok(result.stderr.includes('tooshort'));
});

test('ops/cli.ts runs directly under node with the TypeScript loader too', async () => {
  const result = await loupe(['--version'], {}, [...TYPESCRIPT_NODE_FLAGS, 'ops/cli.ts']);
  assert.is(result.code, 0, result.stderr);
  assert.is(result.stdout.trim(), version);
});

test.run();
