import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, callAs, createUser } from '../../support/authClient.ts';
import { freshDatabase, type TestDatabase } from '../../support/database.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/**
 * Lockout is decided from the user's own stream, so it is not per process: two servers on one
 * database see the same count, and a restarted server still refuses a locked account.
 */

const attempt = (server: TestServer, email: string, password: string) =>
  callAs(server, 'POST', '/auth/login', { json: { email, password } });

type Ctx = { db: TestDatabase; env: ReturnType<typeof authEnv>; a: TestServer; b: TestServer };
const test = suite<Ctx>('lockout', {} as Ctx);

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.env = authEnv();
  ctx.a = await startTestServer({ env: ctx.env, database: ctx.db });
  ctx.b = await startTestServer({ env: ctx.env, database: ctx.db });
  const admin = { bearer: ctx.env.SERVICE_ADMIN_SECRET };
  for (const name of ['lea', 'max', 'ned']) {
    await createUser(ctx.a, admin, { email: `${name}@example.com`, username: name, role: 'MEMBER', password: `${name}-right` });
  }
});
test.after(async (ctx) => {
  await ctx.a.close();
  await ctx.b.close();
  await ctx.db.close();
});

test('five failures lock the account: 429 even with the right password, in the other process, and after a restart', async (ctx) => {
  for (let i = 0; i < 5; i++) assert.is((await attempt(ctx.a, 'lea@example.com', 'wrong')).status, 401, `failure ${i + 1}`);
  const locked = await attempt(ctx.a, 'lea@example.com', 'lea-right');
  assert.is(locked.status, 429);
  assert.is(locked.body.detail, 'Too many failed login attempts. Please try again later.');
  assert.is((await attempt(ctx.b, 'lea@example.com', 'lea-right')).status, 429, 'the other process refuses too');

  await ctx.a.close();
  ctx.a = await startTestServer({ env: ctx.env, database: ctx.db });
  assert.is((await attempt(ctx.a, 'lea@example.com', 'lea-right')).status, 429, 'still locked after a restart');
  assert.is((await attempt(ctx.a, 'max@example.com', 'max-right')).status, 204, 'other accounts are not affected');
});

test('failures in two processes add up to one count', async (ctx) => {
  for (let i = 0; i < 3; i++) assert.is((await attempt(ctx.a, 'ned@example.com', 'wrong')).status, 401);
  for (let i = 0; i < 2; i++) assert.is((await attempt(ctx.b, 'ned@example.com', 'wrong')).status, 401);
  assert.is((await attempt(ctx.a, 'ned@example.com', 'ned-right')).status, 429);
});

test('concurrent failures in both processes are all counted', async (ctx) => {
  await createUser(
    ctx.a,
    { bearer: ctx.env.SERVICE_ADMIN_SECRET },
    { email: 'ola@example.com', username: 'ola', role: 'MEMBER', password: 'ola-right' },
  );
  const replies = await Promise.all([ctx.a, ctx.b, ctx.a, ctx.b, ctx.a].map((s) => attempt(s, 'ola@example.com', 'wrong')));
  assert.equal(
    replies.map((r) => r.status),
    [401, 401, 401, 401, 401],
  );
  assert.is((await attempt(ctx.b, 'ola@example.com', 'ola-right')).status, 429);
});

test('a success resets the count', async (ctx) => {
  for (let i = 0; i < 4; i++) await attempt(ctx.a, 'max@example.com', 'wrong');
  assert.is((await attempt(ctx.b, 'max@example.com', 'max-right')).status, 204);
  for (let i = 0; i < 4; i++) assert.is((await attempt(ctx.a, 'max@example.com', 'wrong')).status, 401);
  assert.is((await attempt(ctx.a, 'max@example.com', 'max-right')).status, 204);
});

test('an email without an account answers exactly like one with an account: five 401s, then 429', async (ctx) => {
  await createUser(
    ctx.a,
    { bearer: ctx.env.SERVICE_ADMIN_SECRET },
    { email: 'pia@example.com', username: 'pia', role: 'MEMBER', password: 'pia-right' },
  );
  const answers = async (email: string) => {
    const statuses: number[] = [];
    const bodies = new Set<string>();
    for (let i = 0; i < 7; i++) {
      const reply = await attempt(ctx.a, email, 'wrong');
      statuses.push(reply.status);
      bodies.add(JSON.stringify(reply.body));
    }
    return { statuses, bodies: [...bodies] };
  };
  const existing = await answers('pia@example.com');
  const unknown = await answers('nobody-here@example.com');
  assert.equal(existing.statuses, [401, 401, 401, 401, 401, 429, 429]);
  assert.equal(unknown, existing, 'same statuses and same bodies');
  assert.is((await attempt(ctx.a, 'nobody-else@example.com', 'wrong')).status, 401, 'each unknown email has its own count');
});

test.run();

const off = suite('lockout disabled');

off('SERVICE_DISABLE_BRUTE_FORCE_LOGIN_PROTECTION lets the right password in after any number of failures', async () => {
  const env = authEnv({ SERVICE_DISABLE_BRUTE_FORCE_LOGIN_PROTECTION: 'true' });
  const server = await startTestServer({ env });
  try {
    for (let i = 0; i < 7; i++) assert.is((await attempt(server, 'admin@localhost', 'wrong')).status, 401);
    assert.is((await attempt(server, 'admin@localhost', 'admin')).status, 204);
  } finally {
    await server.close();
  }
});

off('SERVICE_BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS sets the threshold', async () => {
  const server = await startTestServer({ env: authEnv({ SERVICE_BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS: '2' }) });
  try {
    for (let i = 0; i < 2; i++) assert.is((await attempt(server, 'admin@localhost', 'wrong')).status, 401);
    assert.is((await attempt(server, 'admin@localhost', 'admin')).status, 429);
  } finally {
    await server.close();
  }
});

off.run();
