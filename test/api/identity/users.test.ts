import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, callAs, createUser, login, type Credentials } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Ctx = { server: TestServer; admin: Credentials };
const test = suite<Ctx>('users REST', {} as Ctx);

test.before(async (ctx) => {
  const env = authEnv();
  ctx.server = await startTestServer({ env });
  ctx.admin = { bearer: env.SERVICE_ADMIN_SECRET };
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const newUser = (over: Record<string, unknown> = {}) => ({
  user: { email: 'pat@example.com', username: 'pat', role: 'member', auth_method: 'LOCAL', password: 'pat-pw', ...over },
  send_welcome_email: false,
});

test('POST /v1/users: 201 with the reference shape; the user must pick a password at first login', async ({ server, admin }) => {
  const reply = await callAs(server, 'POST', '/v1/users', { as: admin, json: newUser({ email: ' PAT@Example.com ' }) });
  assert.is(reply.status, 201);
  const user = reply.body.data;
  assert.equal(Object.keys(user).sort(), [
    'auth_method',
    'created_at',
    'email',
    'id',
    'password_needs_reset',
    'role',
    'updated_at',
    'username',
  ]);
  assert.equal(
    [user.email, user.username, user.role, user.auth_method, user.password_needs_reset],
    ['pat@example.com', 'pat', 'MEMBER', 'LOCAL', true],
  );
  assert.match(Buffer.from(user.id, 'base64').toString(), /^User:/);
  const session = await login(server, 'pat@example.com', 'pat-pw');
  assert.equal((await callAs(server, 'GET', '/v1/user', { as: session })).body.data, user);
});

test('POST /v1/users refusals: SYSTEM role, unknown role, taken username or email, weak password, bad body', async ({ server, admin }) => {
  const post = (json: unknown) => callAs(server, 'POST', '/v1/users', { as: admin, json });
  const system = await post(newUser({ email: 'q@example.com', username: 'q', role: 'system' }));
  assert.equal([system.status, system.body.detail], [400, 'Cannot create users with SYSTEM role']);
  assert.is((await post(newUser({ email: 'q@example.com', username: 'q', role: 'owner' }))).status, 422);
  const name = await post(newUser({ email: 'other@example.com', username: 'PAT' }));
  assert.equal([name.status, name.body.detail], [409, 'Username already exists']);
  const email = await post(newUser({ email: 'Pat@example.com', username: 'pat2' }));
  assert.equal([email.status, email.body.detail], [409, 'Email already exists']);
  const weak = await post(newUser({ email: 'w@example.com', username: 'w', password: 'abc' }));
  assert.equal([weak.status, weak.body.detail], [400, 'Password must be at least 4 characters long']);
  const bad = await post({ user: { username: 'x' } });
  assert.is(bad.status, 422);
  assert.match(bad.body.detail, /body\.user\.email/);
  assert.is((await post(newUser({ email: 'not-an-email', username: 'nae' }))).status, 400);
});

test('GET /v1/users: newest first, cursor pagination (the cursor is the first user of the next page)', async ({ server, admin }) => {
  for (const n of [1, 2, 3])
    await createUser(server, admin, { email: `page${n}@example.com`, username: `page${n}`, role: 'VIEWER', password: 'pw-page' });
  const first = await callAs(server, 'GET', '/v1/users?limit=2', { as: admin });
  assert.is(first.status, 200);
  assert.equal(
    first.body.data.map((u: { username: string }) => u.username),
    ['page3', 'page2'],
  );
  assert.type(first.body.next_cursor, 'string');
  const rest = await callAs(server, 'GET', `/v1/users?limit=100&cursor=${encodeURIComponent(first.body.next_cursor)}`, { as: admin });
  const names = rest.body.data.map((u: { username: string }) => u.username);
  assert.is(names[0], 'page1');
  assert.equal(names.slice(-2), ['admin', 'system'], 'the built-in users are listed too, oldest last');
  assert.is(rest.body.next_cursor, null);
  const bad = await callAs(server, 'GET', '/v1/users?cursor=nonsense', { as: admin });
  assert.equal([bad.status, bad.body.detail], [422, 'Invalid cursor format: nonsense']);
  assert.is((await callAs(server, 'GET', '/v1/users?limit=0', { as: admin })).status, 422);
});

test('PATCH /v1/users/{id}: an admin changes role, username and password; built-in and own roles are fixed', async ({ server, admin }) => {
  const id = await createUser(server, admin, { email: 'quin@example.com', username: 'quin', role: 'VIEWER', password: 'quin-pw' });
  const session = await login(server, 'quin@example.com', 'quin-pw');
  const patched = await callAs(server, 'PATCH', `/v1/users/${id}`, {
    as: admin,
    json: { role: 'Member', username: 'quinn', password: 'quin-new' },
  });
  assert.is(patched.status, 200);
  assert.equal([patched.body.data.role, patched.body.data.username, patched.body.data.password_needs_reset], ['MEMBER', 'quinn', true]);
  assert.is((await callAs(server, 'GET', '/v1/user', { as: session })).status, 401, 'a role or password change by an admin ends sessions');
  await login(server, 'quin@example.com', 'quin-new');
  const builtIn = await callAs(server, 'PATCH', '/v1/users/VXNlcjoy', { as: admin, json: { role: 'VIEWER' } });
  assert.equal([builtIn.status, builtIn.body.code], [403, 'builtin_role_fixed']);
  const adminSession = await login(server, 'admin@localhost', 'admin');
  await callAs(server, 'PATCH', `/v1/users/${id}`, { as: adminSession, json: { role: 'ADMIN' } });
  const quinn = await login(server, 'quin@example.com', 'quin-new');
  const own = await callAs(server, 'PATCH', `/v1/users/${id}`, { as: quinn, json: { role: 'VIEWER' } });
  assert.equal([own.status, own.body.code], [403, 'own_role']);
  assert.is((await callAs(server, 'PATCH', '/v1/users/VXNlcjo5OTk5', { as: admin, json: { role: 'VIEWER' } })).status, 404);
});

test('DELETE /v1/users/{id}: built-ins cannot go; unknown ids are 404 or 422; a deleted email can be reused', async ({ server, admin }) => {
  for (const id of ['VXNlcjox', 'VXNlcjoy']) {
    const reply = await callAs(server, 'DELETE', `/v1/users/${id}`, { as: admin });
    assert.equal([reply.status, reply.body.detail], [403, 'Cannot delete the default admin or system user']);
  }
  const bogus = await callAs(server, 'DELETE', '/v1/users/bogus', { as: admin });
  assert.equal([bogus.status, bogus.body.detail], [422, 'Invalid User GlobalID format: bogus']);
  assert.is((await callAs(server, 'DELETE', '/v1/users/VXNlcjo5OTk5', { as: admin })).status, 404);
  const id = await createUser(server, admin, { email: 'rae@example.com', username: 'rae', role: 'MEMBER', password: 'rae-pw' });
  assert.is((await callAs(server, 'DELETE', `/v1/users/${id}`, { as: admin })).status, 204);
  assert.is((await callAs(server, 'POST', '/auth/login', { json: { email: 'rae@example.com', password: 'rae-pw' } })).status, 401);
  const reused = await createUser(server, admin, { email: 'rae@example.com', username: 'rae', role: 'VIEWER', password: 'rae-pw2' });
  assert.is.not(reused, id);
  assert.is((await callAs(server, 'DELETE', `/v1/users/${id}`, { as: admin })).status, 404);
});

test.run();

const strong = suite('strong password policy');
strong('SERVICE_ENABLE_STRONG_PASSWORD_POLICY lists everything a password lacks', async () => {
  const env = authEnv({ SERVICE_ENABLE_STRONG_PASSWORD_POLICY: 'true' });
  const server = await startTestServer({ env });
  try {
    const reply = await callAs(server, 'POST', '/v1/users', {
      as: { bearer: env.SERVICE_ADMIN_SECRET },
      json: newUser({ password: 'abcdefgh' }),
    });
    assert.is(reply.status, 400);
    assert.is(
      reply.body.detail,
      'Password must be at least 12 characters long and contain at least one digit, at least one uppercase letter, and at least one special character',
    );
    const ok = await callAs(server, 'POST', '/v1/users', {
      as: { bearer: env.SERVICE_ADMIN_SECRET },
      json: newUser({ password: 'Abcdefgh1234!' }),
    });
    assert.is(ok.status, 201);
  } finally {
    await server.close();
  }
});
strong.run();
