import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SERVER_NODE_FLAGS } from '../../ops/serverNodeFlags.ts';
import { TYPESCRIPT_NODE_FLAGS } from '../../ops/typescriptNodeFlags.ts';

const cli = new URL('../../ops/cli.ts', import.meta.url).pathname;

/**
 * What a newcomer does: start the server with no configuration but a working dir (embedded
 * PGlite, first start includes initdb), see the URL, get /healthz within 60 s, stop it with SIGTERM.
 * What they read is the start banner, not a stream of request logs.
 */
test('loupe serve with no database configured answers /healthz within 60 s and exits 0 on SIGTERM', async () => {
  const workingDir = await mkdtemp(join(tmpdir(), 'loupe-serve-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SERVICE_WORKING_DIR: workingDir,
    SERVICE_HOST: '127.0.0.1',
    SERVICE_PORT: '0',
    SERVICE_GRPC_PORT: '0',
    SERVICE_OTLP_HTTP_PORT: '0',
  };
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...TYPESCRIPT_NODE_FLAGS, cli, 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const started = Date.now();
    let url: string | null = null;
    while (!url && Date.now() - started < 60_000) {
      url = /Loupe is running at (\S+)/.exec(output)?.[1] ?? null;
      if (!url) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(url, `no URL printed within 60 s:\n${output}`);
    const health = await fetch(`${url}/healthz`);
    assert.is(health.status, 200);
    assert.ok(Date.now() - started < 60_000, 'healthy within 60 s');
    const projects = (await (await fetch(`${url}/v1/projects`)).json()) as { data: Array<{ name: string }> };
    assert.equal(
      projects.data.map((p) => p.name),
      ['default'],
      'a fresh server lists its default project',
    );
    // The banner says where to send traces, where the data lives and that auth is off
    assert.match(output, /OTLP traces\s+http:\/\/127\.0\.0\.1:\d+\/v1\/traces .*gRPC 127\.0\.0\.1:\d+/);
    assert.ok(output.includes(`embedded PGlite at ${join(workingDir, 'pgdata')}`), output);
    assert.match(output, /Auth\s+off: anyone who reaches these ports/);
    assert.match(output, /Logs\s+info; SERVICE_LOG_LEVEL=debug adds one line per request/);
    // ...and at the default level, requests are not logged one by one, nor the whole configuration
    await new Promise((r) => setTimeout(r, 200));
    assert.not.match(output, /"msg":"request"|"msg":"configuration"/);
    assert.not.match(output, /"level":(40|50|60)/, 'no warning or error on a clean start');
    child.kill('SIGTERM');
    assert.is(await exited, 0, output);
  } finally {
    child.kill('SIGKILL');
    await rm(workingDir, { recursive: true, force: true });
  }
});

test.run();
