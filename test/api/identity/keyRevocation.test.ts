import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, callAs, createKey, createUser, login, type Credentials } from '../../support/authClient.ts';
import { freshDatabase, type TestDatabase } from '../../support/database.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/**
 * A key carries no role: every request is judged on the state derived from the events so far, so
 * deleting a key, or changing its owner's role, changes what the key can do on the very next
 * request (in the process that made the change; in another one as soon as its runner applies it).
 */

const ingest = (server: TestServer, as: Credentials) => callAs(server, 'POST', '/v1/traces', { as, json: {} });

/** Another process applies the change on its runner's next batch (it polls every 100 ms when idle). */
const eventually = async (check: () => Promise<boolean>, what: string) => {
  const until = Date.now() + 3000;
  while (!(await check())) {
    if (Date.now() > until) assert.unreachable(what);
    await new Promise((r) => setTimeout(r, 25));
  }
};

type Ctx = { db: TestDatabase; a: TestServer; b: TestServer; secret: Credentials };
const test = suite<Ctx>('key revocation', {} as Ctx);

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  const env = authEnv();
  ctx.a = await startTestServer({ env, database: ctx.db });
  ctx.b = await startTestServer({ env, database: ctx.db });
  ctx.secret = { bearer: env.SERVICE_ADMIN_SECRET };
});
test.after(async (ctx) => {
  await ctx.a.close();
  await ctx.b.close();
  await ctx.db.close();
});

test("a role change changes what the user's key may do on the next request", async ({ a, b, secret }) => {
  const id = await createUser(a, secret, { email: 'kim@example.com', username: 'kim', role: 'MEMBER', password: 'kim-pw' });
  const key = { bearer: (await createKey(a, await login(a, 'kim@example.com', 'kim-pw'), 'user')).key };
  assert.is((await ingest(a, key)).status, 200);
  assert.is((await ingest(b, key)).status, 200, 'a key issued in one process works in the other at once');

  assert.is((await callAs(a, 'PATCH', `/v1/users/${id}`, { as: secret, json: { role: 'viewer' } })).status, 200);
  const refused = await ingest(a, key);
  assert.is(refused.status, 403);
  assert.is(refused.body.code, 'viewer_forbidden');
  assert.is((await callAs(a, 'GET', '/v1/user', { as: key })).body.data.role, 'VIEWER');
  await eventually(async () => (await ingest(b, key)).status === 403, 'the other process sees the new role');

  await callAs(a, 'PATCH', `/v1/users/${id}`, { as: secret, json: { role: 'ADMIN' } });
  assert.is((await callAs(a, 'GET', '/v1/users', { as: key })).status, 200, 'now an admin key');
  await callAs(a, 'PATCH', `/v1/users/${id}`, { as: secret, json: { role: 'MEMBER' } });
  assert.is((await callAs(a, 'GET', '/v1/users', { as: key })).status, 403);
  assert.is((await ingest(a, key)).status, 200);
});

test('a deleted user key is refused on the next request', async ({ a, b, secret }) => {
  await createUser(a, secret, { email: 'lou@example.com', username: 'lou', role: 'MEMBER', password: 'lou-pw' });
  const session = await login(a, 'lou@example.com', 'lou-pw');
  const created = await createKey(a, session, 'user');
  const key = { bearer: created.key };
  assert.is((await callAs(b, 'GET', '/v1/user', { as: key })).status, 200);
  const listed = await callAs(a, 'GET', '/v1/user/api_keys', { as: session });
  assert.equal(
    listed.body.data.map((k: { id: string }) => k.id),
    [created.id],
  );
  assert.not.ok(JSON.stringify(listed.body).includes(created.key), 'the key itself is never listed');

  assert.is((await callAs(a, 'DELETE', `/v1/user/api_keys/${created.id}`, { as: session })).status, 204);
  const refused = await callAs(a, 'GET', '/v1/user', { as: key });
  assert.is(refused.status, 401);
  assert.is(refused.body.detail, 'Invalid token');
  await eventually(async () => (await callAs(b, 'GET', '/v1/user', { as: key })).status === 401, 'the other process refuses it');
  assert.is((await callAs(a, 'DELETE', `/v1/user/api_keys/${created.id}`, { as: session })).status, 404, 'gone');
});

test("someone else's key is 'not found' to a non-admin; an admin may delete it", async ({ a, secret }) => {
  await createUser(a, secret, { email: 'mo@example.com', username: 'mo', role: 'MEMBER', password: 'mo-pw' });
  await createUser(a, secret, { email: 'nia@example.com', username: 'nia', role: 'MEMBER', password: 'nia-pw' });
  const mo = await createKey(a, await login(a, 'mo@example.com', 'mo-pw'), 'user');
  const nia = await login(a, 'nia@example.com', 'nia-pw');
  const probe = await callAs(a, 'DELETE', `/v1/user/api_keys/${mo.id}`, { as: nia });
  assert.is(probe.status, 404);
  assert.is(probe.body.detail, 'API key not found');
  const all = await callAs(a, 'GET', '/v1/users/api_keys', { as: secret });
  const listed = all.body.data.find((k: { id: string }) => k.id === mo.id);
  assert.equal(listed.user.username, 'mo');
  assert.is((await callAs(a, 'DELETE', `/v1/user/api_keys/${mo.id}`, { as: secret })).status, 204);
  assert.is((await callAs(a, 'GET', '/v1/user', { as: { bearer: mo.key } })).status, 401);
});

test('deleting a user ends their keys; a system key outlives the admin who created it', async ({ a, secret }) => {
  const adminId = await createUser(a, secret, { email: 'ada@example.com', username: 'ada', role: 'ADMIN', password: 'ada-pw' });
  const ada = await login(a, 'ada@example.com', 'ada-pw');
  const personal = await createKey(a, ada, 'user');
  const system = await createKey(a, ada, 'system');
  assert.is((await callAs(a, 'DELETE', `/v1/users/${adminId}`, { as: secret })).status, 204);
  assert.is((await callAs(a, 'GET', '/v1/user', { as: { bearer: personal.key } })).status, 401);
  assert.is((await callAs(a, 'GET', '/v1/user', { as: ada })).status, 401);
  const viaSystemKey = await callAs(a, 'GET', '/v1/user', { as: { bearer: system.key } });
  assert.is(viaSystemKey.status, 200);
  assert.is(viaSystemKey.body.data.role, 'SYSTEM');
  assert.is((await ingest(a, { bearer: system.key })).status, 200);
  assert.is((await callAs(a, 'GET', '/v1/users', { as: { bearer: system.key } })).status, 403, 'system keys are not admins');

  const systemKeys = await callAs(a, 'GET', '/v1/system/api_keys', { as: secret });
  assert.ok(systemKeys.body.data.some((k: { id: string }) => k.id === system.id));
  assert.is(
    (await callAs(a, 'DELETE', `/v1/system/api_keys/${personal.id}`, { as: secret })).status,
    422,
    'a user key id on the system route',
  );
  assert.is((await callAs(a, 'DELETE', `/v1/system/api_keys/${system.id}`, { as: secret })).status, 204);
  assert.is((await ingest(a, { bearer: system.key })).status, 401);
});

test.run();
