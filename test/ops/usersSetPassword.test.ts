import { Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildServer, type RunningServer } from '../../ops/buildServer.ts';
import { loadConfig } from '../../ops/config.ts';
import { createLogger } from '../../ops/logger.ts';
import { authEnv, callAs, createUser, login } from '../support/authClient.ts';
import { cliDatabase } from '../support/cliDatabase.ts';
import { runCli } from '../support/cliProcess.ts';
import { TEST_PASSWORD_COST } from '../support/testIdentity.ts';

/** `loupe users set-password EMAIL` against the database a server uses (stopped meanwhile: PGlite is one process's). */

const setPassword = (env: Record<string, string>, stdin: string, ...args: string[]) =>
  runCli(env, ['users', 'set-password', ...args], stdin);

const start = async (env: Record<string, string>): Promise<RunningServer & { baseUrl: string }> => {
  const config = loadConfig({ SERVICE_HOST: '127.0.0.1', SERVICE_PORT: '0', SERVICE_GRPC_PORT: '0', SERVICE_OTLP_HTTP_PORT: '0', ...env });
  const logger = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));
  const server = await buildServer(config, { logger, passwordCost: TEST_PASSWORD_COST });
  return { ...server, baseUrl: `http://127.0.0.1:${server.ports.http}` };
};

test('sets the password of a local user, ends their sessions and lifts a lockout; refuses unknown users and weak passwords', async () => {
  const db = await cliDatabase();
  const env = { ...authEnv(), ...db.env };
  const cleanup = db.cleanup;
  try {
    let server = await start(env);
    await createUser(
      server,
      { bearer: env.SERVICE_ADMIN_SECRET },
      { email: 'tom@example.com', username: 'tom', role: 'MEMBER', password: 'tom-old' },
    );
    const session = await login(server, 'tom@example.com', 'tom-old');
    for (let i = 0; i < 5; i++) await callAs(server, 'POST', '/auth/login', { json: { email: 'tom@example.com', password: 'wrong' } });
    assert.is((await callAs(server, 'POST', '/auth/login', { json: { email: 'tom@example.com', password: 'tom-old' } })).status, 429);
    await server.stop();

    const unknown = await setPassword(env, 'whatever\n', 'nobody@example.com');
    assert.is(unknown.code, 1);
    assert.match(unknown.stderr, /no user with the email nobody@example.com/);
    const weak = await setPassword(env, 'abc\n', 'tom@example.com');
    assert.is(weak.code, 1);
    assert.match(weak.stderr, /Password must be at least 4 characters long/);
    const done = await setPassword(env, 'tom-recovered\n', ' TOM@example.com ');
    assert.is(done.code, 0, done.stderr);
    assert.match(done.stdout, /password of tom@example.com changed/);
    assert.not.ok(done.stdout.includes('tom-recovered') || done.stderr.includes('tom-recovered'));

    server = await start(env);
    try {
      // On Postgres the log shows an event only once every older transaction in the cluster has
      // ended, so another database's long transaction can delay it; PGlite shows it at once.
      const until = Date.now() + 30_000;
      while ((await callAs(server, 'GET', '/v1/user', { as: session })).status !== 401) {
        if (Date.now() > until) assert.unreachable('sessions ended');
        await new Promise((r) => setTimeout(r, 100));
      }
      const fresh = await login(server, 'tom@example.com', 'tom-recovered');
      assert.is((await callAs(server, 'GET', '/v1/user', { as: fresh })).body.data.password_needs_reset, false);
    } finally {
      await server.stop();
    }
  } finally {
    await cleanup();
  }
});

test.run();
