import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, callAs, createKey, createUser, login, type Credentials } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const payloadOf = (jwt: string): Record<string, unknown> => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
const headerOf = (jwt: string): Record<string, unknown> => JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString('utf8'));

type Ctx = { server: TestServer; secret: Credentials; env: ReturnType<typeof authEnv> };
const test = suite<Ctx>('sessions', {} as Ctx);

test.before(async (ctx) => {
  ctx.env = authEnv();
  ctx.server = await startTestServer({ env: ctx.env });
  ctx.secret = { bearer: ctx.env.SERVICE_ADMIN_SECRET };
  await createUser(ctx.server, ctx.secret, { email: 'ann@example.com', username: 'ann', role: 'MEMBER', password: 'ann-pw-1' });
});
test.after(async (ctx) => {
  await ctx.server.close();
});

test('login: 204 with HttpOnly SameSite=Strict cookies whose JWTs carry only a jti', async ({ server }) => {
  const reply = await callAs(server, 'POST', '/auth/login', { json: { email: '  ANN@example.com ', password: 'ann-pw-1' } });
  assert.is(reply.status, 204);
  const access = reply.setCookies.find((c) => c.startsWith('loupe-access-token='))!;
  const refresh = reply.setCookies.find((c) => c.startsWith('loupe-refresh-token='))!;
  assert.match(access, /; Max-Age=600; Path=\/; SameSite=Strict; HttpOnly$/);
  assert.match(refresh, /; Max-Age=604800; Path=\/; SameSite=Strict; HttpOnly$/);
  const jwt = reply.cookies['loupe-access-token']!;
  assert.equal(headerOf(jwt), { alg: 'HS256', typ: 'JWT' });
  assert.equal(Object.keys(payloadOf(jwt)), ['jti']);
  assert.match(String(payloadOf(jwt).jti), /^AccessToken:/);
  assert.match(String(payloadOf(reply.cookies['loupe-refresh-token']!).jti), /^RefreshToken:/);
  const again = await login(server, 'ann@example.com', 'ann-pw-1');
  assert.is.not(again.access, jwt, 'every login issues fresh tokens');
});

test('login refusals: missing fields, wrong password, unknown email', async ({ server }) => {
  const missing = await callAs(server, 'POST', '/auth/login', { json: { email: 'ann@example.com' } });
  assert.is(missing.status, 401);
  assert.is(missing.body.detail, 'Email and password required');
  for (const body of [
    { email: 'ann@example.com', password: 'nope' },
    { email: 'nobody@example.com', password: 'ann-pw-1' },
  ]) {
    const reply = await callAs(server, 'POST', '/auth/login', { json: body });
    assert.is(reply.status, 401);
    assert.is(reply.body.detail, 'Invalid email and/or password');
    assert.equal(reply.setCookies, []);
  }
});

test('the access cookie and the access token as bearer authenticate; refresh tokens never do', async ({ server, env }) => {
  const session = await login(server, 'ann@example.com', 'ann-pw-1');
  assert.is((await callAs(server, 'GET', '/v1/user', { as: { cookie: session.cookie } })).body.data.username, 'ann');
  assert.is((await callAs(server, 'GET', '/v1/user', { as: { bearer: session.access } })).status, 200);
  assert.is((await callAs(server, 'GET', '/v1/user', { as: { bearer: session.refresh } })).status, 401);
  assert.is((await callAs(server, 'GET', '/v1/user', { as: { cookie: `loupe-access-token=${session.refresh}` } })).status, 401);
  // A non-bearer Authorization header means the cookie is not consulted.
  const basic = await callAs(server, 'GET', '/v1/user', { as: { cookie: session.cookie }, headers: { authorization: 'Basic abc' } });
  assert.is(basic.status, 401);
  // The admin secret works only as a bearer.
  assert.is((await callAs(server, 'GET', '/v1/user', { as: { cookie: `loupe-access-token=${env.SERVICE_ADMIN_SECRET}` } })).status, 401);
  // A token signed with another secret is garbage.
  const forged = `${session.access.split('.').slice(0, 2).join('.')}.${Buffer.from('x'.repeat(32)).toString('base64url')}`;
  assert.is((await callAs(server, 'GET', '/v1/user', { as: { bearer: forged } })).status, 401);
});

test('a request without credentials is told what is missing and how to send a key (REST, OTLP, GraphQL); a bad token is "Invalid token"', async ({
  server,
}) => {
  for (const [method, path] of [
    ['GET', '/v1/projects'],
    ['POST', '/v1/traces'],
    ['POST', '/graphql'],
  ] as const) {
    const none = await callAs(server, method, path, { json: method === 'POST' ? {} : undefined });
    assert.is(none.status, 401, path);
    assert.is(none.body.code, 'unauthenticated', path);
    assert.match(none.body.detail, 'No credentials', path);
    assert.match(none.body.detail, 'Authorization: Bearer <key>', path);
    const bad = await callAs(server, method, path, { as: { bearer: 'not-a-key' }, json: method === 'POST' ? {} : undefined });
    assert.equal([bad.status, bad.body.detail], [401, 'Invalid token'], path);
  }
});

test('refresh: a new pair; the used refresh token and its access token stop working (single use)', async ({ server }) => {
  const session = await login(server, 'ann@example.com', 'ann-pw-1');
  const refreshed = await callAs(server, 'POST', '/auth/refresh', { as: { cookie: session.cookie } });
  assert.is(refreshed.status, 204);
  const next = `loupe-access-token=${refreshed.cookies['loupe-access-token']}; loupe-refresh-token=${refreshed.cookies['loupe-refresh-token']}`;
  assert.is((await callAs(server, 'GET', '/v1/user', { as: { cookie: next } })).status, 200);
  assert.is((await callAs(server, 'GET', '/v1/user', { as: { cookie: session.cookie } })).status, 401, 'old access token');
  const reuse = await callAs(server, 'POST', '/auth/refresh', { as: { cookie: session.cookie } });
  assert.is(reuse.status, 401);
  assert.is(reuse.body.detail, 'Invalid refresh token');
  const missing = await callAs(server, 'POST', '/auth/refresh');
  assert.is(missing.body.detail, 'Missing refresh token');
});

test('logout: ends every session of the user, clears the cookies, redirects to /login', async ({ server }) => {
  const one = await login(server, 'ann@example.com', 'ann-pw-1');
  const two = await login(server, 'ann@example.com', 'ann-pw-1');
  const out = await callAs(server, 'GET', '/auth/logout', { as: { cookie: one.cookie } });
  assert.is(out.status, 302);
  assert.is(out.headers.get('location'), '/login');
  assert.is(out.cookies['loupe-access-token'], '');
  assert.ok(out.setCookies.every((c) => c.includes('Max-Age=0')));
  for (const session of [one, two]) {
    assert.is((await callAs(server, 'GET', '/v1/user', { as: { cookie: session.cookie } })).status, 401);
    assert.is((await callAs(server, 'POST', '/auth/refresh', { as: { cookie: session.cookie } })).status, 401);
  }
  assert.is((await callAs(server, 'GET', '/auth/logout')).status, 302, 'works without credentials');
});

test('own username and password: the current password is required, and a change ends sessions', async ({ server, secret }) => {
  await createUser(server, secret, { email: 'cy@example.com', username: 'cy', role: 'VIEWER', password: 'cy-pw-1' });
  const session = await login(server, 'cy@example.com', 'cy-pw-1');
  const renamed = await callAs(server, 'PATCH', '/v1/user', { as: session, json: { username: 'cyrus' } });
  assert.is(renamed.status, 200);
  assert.is(renamed.body.data.username, 'cyrus');
  const wrong = await callAs(server, 'PATCH', '/v1/user', { as: session, json: { current_password: 'nope', new_password: 'cy-pw-2' } });
  assert.is(wrong.status, 400);
  assert.is(wrong.body.code, 'invalid_current_password');
  const changed = await callAs(server, 'PATCH', '/v1/user', {
    as: session,
    json: { current_password: 'cy-pw-1', new_password: 'cy-pw-2' },
  });
  assert.is(changed.status, 200);
  assert.is(changed.body.data.password_needs_reset, false);
  assert.is((await callAs(server, 'GET', '/v1/user', { as: session })).status, 401, 'sessions end with a new password');
  assert.is((await callAs(server, 'POST', '/auth/login', { json: { email: 'cy@example.com', password: 'cy-pw-1' } })).status, 401);
  await login(server, 'cy@example.com', 'cy-pw-2');
  const taken = await callAs(server, 'PATCH', '/v1/user', {
    as: await login(server, 'cy@example.com', 'cy-pw-2'),
    json: { username: 'ANN' },
  });
  assert.is(taken.status, 409);
});

test('the admin secret is the system user; it and keys cannot mint user keys', async ({ server, secret }) => {
  const viewer = await callAs(server, 'GET', '/v1/user', { as: secret });
  assert.equal([viewer.body.data.id, viewer.body.data.role, viewer.body.data.email], ['VXNlcjox', 'SYSTEM', 'system@localhost']);
  const bySecret = await callAs(server, 'POST', '/v1/user/api_keys', { as: secret, json: { data: { name: 'k' } } });
  assert.is(bySecret.status, 403);
  const ann = await login(server, 'ann@example.com', 'ann-pw-1');
  const key = await createKey(server, ann, 'user');
  const byKey = await callAs(server, 'POST', '/v1/user/api_keys', { as: { bearer: key.key }, json: { data: { name: 'k2' } } });
  assert.is(byKey.status, 403);
  assert.is(byKey.body.detail, 'API keys cannot create API keys');
  assert.is((await callAs(server, 'GET', '/v1/user', { as: { bearer: key.key } })).body.data.username, 'ann');
});

test.run();

const variants = suite('auth variants');

variants('auth off: anonymous viewer, no /auth routes, credential endpoints 403', async () => {
  const server = await startTestServer();
  try {
    assert.equal((await callAs(server, 'GET', '/v1/user')).body, { data: { auth_method: 'ANONYMOUS' } });
    assert.is((await callAs(server, 'POST', '/auth/login', { json: { email: 'admin@localhost', password: 'admin' } })).status, 404);
    const keys = await callAs(server, 'POST', '/v1/user/api_keys', { json: { data: { name: 'k' } } });
    assert.is(keys.status, 403);
    assert.is(
      keys.body.detail,
      'This action requires authentication to be enabled. Set the SERVICE_ENABLE_AUTH environment variable to true.',
    );
    assert.is((await callAs(server, 'GET', '/v1/system/api_keys')).status, 403);
    assert.is((await callAs(server, 'GET', '/v1/users')).status, 200);
  } finally {
    await server.close();
  }
});

variants('secure cookies under the root path', async () => {
  const server = await startTestServer({ env: authEnv({ SERVICE_USE_SECURE_COOKIES: 'true', SERVICE_HOST_ROOT_PATH: '/loupe' }) });
  try {
    const reply = await callAs(server, 'POST', '/auth/login', { json: { email: 'admin@localhost', password: 'admin' } });
    assert.is(reply.status, 204);
    for (const cookie of reply.setCookies) assert.match(cookie, /; Path=\/loupe; SameSite=Strict; HttpOnly; Secure$/);
    const out = await callAs(server, 'GET', '/auth/logout');
    assert.is(out.headers.get('location'), '/loupe/login');
  } finally {
    await server.close();
  }
});

variants('SERVICE_DISABLE_BASIC_AUTH: no password login, no new local users', async () => {
  const env = authEnv({
    SERVICE_DISABLE_BASIC_AUTH: 'true',
    SERVICE_OAUTH2_IDP_CLIENT_ID: 'loupe',
    SERVICE_OAUTH2_IDP_CLIENT_SECRET: 'x-secret',
    SERVICE_OAUTH2_IDP_OIDC_CONFIG_URL: 'https://idp.example.org/.well-known/openid-configuration',
  });
  const server = await startTestServer({ env });
  try {
    const reply = await callAs(server, 'POST', '/auth/login', { json: { email: 'admin@localhost', password: 'admin' } });
    assert.is(reply.status, 403);
    const local = await callAs(server, 'POST', '/v1/users', {
      as: { bearer: env.SERVICE_ADMIN_SECRET },
      json: { user: { email: 'x@example.com', username: 'x', role: 'MEMBER', auth_method: 'LOCAL', password: 'xxxx' } },
    });
    assert.is(local.status, 403);
    assert.is(local.body.code, 'basic_auth_disabled');
    assert.is((await callAs(server, 'POST', '/auth/password-reset-email', { json: { email: 'admin@localhost' } })).status, 403);
    assert.is((await callAs(server, 'GET', '/auth/logout')).headers.get('location'), '/logout');
  } finally {
    await server.close();
  }
});

variants('CSRF: untrusted Origin or Referer hosts get 401 on every path; absent headers pass', async () => {
  const server = await startTestServer({ env: { SERVICE_CSRF_TRUSTED_ORIGINS: ',http://localhost,' } });
  try {
    const status = async (headers: Record<string, string>) => (await callAs(server, 'GET', '/healthz', { headers })).status;
    assert.is(await status({}), 200);
    assert.is(await status({ origin: 'http://localhost' }), 200);
    assert.is(await status({ origin: 'https://localhost:9999' }), 200, 'scheme and port are not compared');
    assert.is(await status({ referer: 'http://localhost/xyz' }), 200);
    assert.is(await status({ origin: 'http://evil.example' }), 401);
    assert.is(await status({ origin: 'http://localhost', referer: 'http://evil.example/' }), 401);
    assert.is(await status({ origin: 'null' }), 401);
    const reply = await callAs(server, 'GET', '/v1/user', { headers: { referer: 'http://evil.example/' } });
    assert.equal(reply.body, { detail: 'untrusted referer', code: 'untrusted_referer' });
  } finally {
    await server.close();
  }
  const off = await startTestServer();
  try {
    assert.is((await callAs(off, 'GET', '/healthz', { headers: { origin: 'http://evil.example' } })).status, 200, 'off when unset');
  } finally {
    await off.close();
  }
});

variants.run();
