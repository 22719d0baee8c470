import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, callAs, createKey, createUser, login, type Credentials, type Reply } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/**
 * Every identity, API key and secret write checks lengths and characters before it appends.
 * Before, an 8 KB secret key or a username with NUL was acknowledged and then stopped every read
 * model (a btree entry holds ~2.7 KB; Postgres text holds no U+0000, jsonb no unpaired
 * surrogate). Each trigger must now be a 4xx naming the field, and the read models must keep
 * answering fresh writes afterwards.
 */

const KB8 = 'k'.repeat(8 * 1024);

type Ctx = { server: TestServer; admin: Credentials; viewer: Credentials; viewerId: string };
const test = suite<Ctx>('hostile identity input', {} as Ctx);

test.before(async (ctx) => {
  const env = authEnv();
  ctx.server = await startTestServer({ env });
  ctx.admin = { bearer: env.SERVICE_ADMIN_SECRET };
  ctx.viewerId = await createUser(ctx.server, ctx.admin, { email: 'vee@example.com', username: 'vee', role: 'VIEWER', password: 'vee-pw' });
  ctx.viewer = await login(ctx.server, 'vee@example.com', 'vee-pw');
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const refused = (reply: Reply, field: string) => {
  assert.is(reply.status, 422, `${field}: ${reply.status} ${JSON.stringify(reply.body)}`);
  assert.ok(String(reply.body.detail).includes(field), `the answer names ${field}: ${reply.body.detail}`);
  assert.type(reply.body.code, 'string');
};

const newUser = (user: Record<string, unknown>) => ({
  user: { email: 'x@example.com', username: 'x', role: 'MEMBER', auth_method: 'LOCAL', password: 'x-pw', ...user },
  send_welcome_email: false,
});

test('PUT /v1/secrets: an 8 KB key, an over-long or broken value, too many entries and unknown fields are 422s', async ({
  server,
  admin,
}) => {
  const put = (json: unknown) => callAs(server, 'PUT', '/v1/secrets', { as: admin, json });
  refused(await put({ secrets: [{ key: KB8, value: 'v' }] }), 'body.secrets.0.key');
  refused(
    await put({
      secrets: [
        { key: 'OK', value: 'v' },
        { key: 'BIG', value: 'v'.repeat(70_000) },
      ],
    }),
    'body.secrets.1.value',
  );
  refused(await put({ secrets: [{ key: 'SURROGATE', value: 'a\ud800b' }] }), 'body.secrets.0.value');
  refused(await put({ secrets: Array.from({ length: 1001 }, (_, i) => ({ key: `K${i}`, value: 'v' })) }), 'body.secrets');
  refused(await put({ secrets: [{ key: 'A', value: 'v', note: 'x' }] }), 'note');
  refused(await put({ secrets: [{ key: 'A', value: 'v' }], extra: 1 }), 'extra');
});

test('POST /v1/users: NUL, unpaired surrogates and 8 KB in username, email or ids are 422s naming the field', async ({ server, admin }) => {
  const post = (json: unknown) => callAs(server, 'POST', '/v1/users', { as: admin, json });
  refused(await post(newUser({ username: 'ev\u0000il' })), 'body.user.username');
  refused(await post(newUser({ username: 'ev\ud800il' })), 'body.user.username');
  refused(await post(newUser({ username: KB8 })), 'body.user.username');
  refused(await post(newUser({ email: 'a\u0000b@example.com' })), 'body.user.email');
  refused(await post(newUser({ email: `${KB8}@example.com` })), 'body.user.email');
  refused(await post(newUser({ auth_method: 'OAUTH2', password: undefined, oauth2_user_id: KB8 })), 'body.user.oauth2_user_id');
  refused(await post(newUser({ is_admin: true })), 'is_admin');
  refused(await post({ ...newUser({}), role: 'ADMIN' }), 'role');
});

test('PATCH /v1/user by a viewer: a NUL username and an unknown field (password for new_password) are 422s', async ({ server, viewer }) => {
  const patch = (json: unknown) => callAs(server, 'PATCH', '/v1/user', { as: viewer, json });
  refused(await patch({ username: 'vee\u0000' }), 'body.username');
  refused(await patch({ username: KB8 }), 'body.username');
  const misnamed = await patch({ password: 'new-pw' });
  refused(misnamed, 'password');
  assert.ok((await login(server, 'vee@example.com', 'vee-pw')).cookie, 'nothing changed');
});

test('PATCH /v1/users/{id}: a control character in the new username is a 422', async ({ server, admin, viewerId }) => {
  refused(await callAs(server, 'PATCH', `/v1/users/${viewerId}`, { as: admin, json: { username: 'a\u001bb' } }), 'body.username');
  refused(await callAs(server, 'PATCH', `/v1/users/${viewerId}`, { as: admin, json: { rol: 'ADMIN' } }), 'rol');
});

test('POST /v1/user/api_keys: over-long names, NUL descriptions, far-future expiries and unknown fields are 422s', async ({
  server,
  admin,
}) => {
  const session = await login(server, 'admin@localhost', 'admin').catch(() => null);
  const as = session ?? admin;
  const post = (data: Record<string, unknown>) => callAs(server, 'POST', '/v1/system/api_keys', { as, json: { data } });
  refused(await post({ name: KB8 }), 'body.data.name');
  refused(await post({ name: 'k\u0000' }), 'body.data.name');
  refused(await post({ name: 'k', description: 'd\u0000' }), 'body.data.description');
  refused(await post({ name: 'k', expires_at: '+200000-01-01T00:00:00Z' }), 'body.data.expires_at');
  refused(await post({ name: 'k', scopes: ['all'] }), 'scopes');
  const ok = await post({ name: 'fine', description: 'two\nlines' });
  assert.is(ok.status, 201, JSON.stringify(ok.body));
});

test('after all of that, the read models still answer fresh writes', async ({ server, admin }) => {
  assert.is((await callAs(server, 'PUT', '/v1/secrets', { as: admin, json: { secrets: [{ key: 'AFTER', value: 'v' }] } })).status, 200);
  const secrets = await callAs(server, 'GET', '/v1/secrets', { as: admin });
  assert.ok(secrets.body.data.some((s: { key: string }) => s.key === 'AFTER'));
  await createUser(server, admin, { email: 'later@example.com', username: 'later', role: 'MEMBER', password: 'later-pw' });
  const users = await callAs(server, 'GET', '/v1/users', { as: admin });
  assert.ok(users.body.data.some((u: { username: string }) => u.username === 'later'));
  const key = await createKey(server, await login(server, 'later@example.com', 'later-pw'), 'user');
  assert.is((await callAs(server, 'GET', '/v1/user', { as: { bearer: key.key } })).status, 200);
  assert.is(server.runner.lastError(), null);
});

test('query strings: NUL in the secrets search or a cursor is a 422, not a 500', async ({ server, admin }) => {
  refused(await callAs(server, 'GET', '/v1/secrets?search=a%00b', { as: admin }), 'query.search');
  refused(await callAs(server, 'GET', '/v1/users?cursor=a%00b', { as: admin }), 'query.cursor');
});

test.run();
