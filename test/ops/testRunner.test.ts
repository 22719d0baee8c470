import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TYPESCRIPT_NODE_FLAGS } from '../../ops/typescriptNodeFlags.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = (name: string) => `test/ops/fixtures/runner/${name}.fixture.ts`;

const runRunner = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [...TYPESCRIPT_NODE_FLAGS, 'ops/test-runner.ts', ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
  });

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);

test('given passing, failing, crashing, hanging and leaking files, then each is counted and none hides another', async () => {
  const { code, stdout } = await runRunner([
    // longer than the 5 s the runner allows after a summary, so the leak is seen as a leak
    '--timeout',
    '8',
    ...['pass', 'fail', 'crash', 'hang', 'leak'].map(fixture),
  ]);
  assert.is(code, 1, stdout);
  // pass 2 + fail 1 + leak 1 passed; fail 1 + crash 1 + hang 1 failed
  assert.is(lastLine(stdout), '4 passed, 3 failed', stdout);
  assert.match(stdout, /^ok {3}test\/ops\/fixtures\/runner\/pass\.fixture\.ts \(2 passed, 0 failed, [\d.]+ s, CPU [\d.]+ s\)$/m);
  assert.match(stdout, /^FAIL test\/ops\/fixtures\/runner\/fail\.fixture\.ts \(1 passed, 1 failed/m);
  assert.match(stdout, /FAIL {2}"fails"/, 'a failing file shows its whole uvu output');
  assert.match(stdout, /^FAIL test\/ops\/fixtures\/runner\/crash\.fixture\.ts \(0 passed, 1 failed/m);
  assert.match(stdout, /Error: crash at import/);
  assert.match(stdout, /^FAIL test\/ops\/fixtures\/runner\/hang\.fixture\.ts \(0 passed, 1 failed/m);
  assert.match(stdout, /timed out after 8 s and was killed/);
  assert.match(stdout, /^ok {3}test\/ops\/fixtures\/runner\/leak\.fixture\.ts \(1 passed, 0 failed/m);
  assert.match(stdout, /warning: still running 5 s after its summary/);
  assert.not.match(stdout, /\x1b\[/, 'no colour codes');
});

test('given a file whose runtime aborts once, then it runs again and its second outcome counts, with a note', async () => {
  const marker = join(tmpdir(), `loupe-abort-once-${process.pid}-${Date.now()}`);
  const { code, stdout } = await runRunner([fixture('abortOnce')], { ABORT_ONCE_MARKER: marker });
  assert.is(code, 0, stdout);
  assert.is(lastLine(stdout), '1 passed, 0 failed', stdout);
  assert.match(stdout, /warning: the runtime crashed on the first run/);
});

test('given a file that fails its assertions, then it is not run again', async () => {
  const { stdout } = await runRunner([fixture('fail')]);
  assert.not.match(stdout, /crashed on the first run/);
  assert.is(lastLine(stdout), '1 passed, 1 failed', stdout);
});

test('given only passing files, then exit 0 and a clean summary', async () => {
  const { code, stdout } = await runRunner([fixture('pass')]);
  assert.is(code, 0, stdout);
  assert.is(lastLine(stdout), '2 passed, 0 failed');
});

test('--list --only-backend-dependent names the files a backend can change, slow kinds first, and runs none', async () => {
  const { code, stdout } = await runRunner([
    '--list',
    '--only-backend-dependent',
    'test/domain/projects',
    'test/api/projects',
    'test/e2e/pricesFlows.test.ts',
  ]);
  assert.is(code, 0, stdout);
  assert.equal(stdout.trim().split('\n'), [
    'test/e2e/pricesFlows.test.ts',
    'test/api/projects/projectAccess.test.ts',
    'test/api/projects/projectRoutes.test.ts',
    'test/api/projects/projects.test.ts',
  ]);
});

test('given a pattern that matches nothing, then it fails rather than passing silently', async () => {
  const { code, stdout } = await runRunner(['no-such-test-anywhere']);
  assert.is(code, 1);
  assert.match(stdout, /no test files matched no-such-test-anywhere/);
  assert.is(lastLine(stdout), '0 passed, 1 failed');
});

test.run();
