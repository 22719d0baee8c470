import { suite } from 'uvu';
import { START } from '../../../domain/eventstore/types.ts';
import * as assert from 'uvu/assert';
import { type CookieJar, navigate, type OidcAccount, type OidcPeer, startOidcProvider } from '../../peers/oidcProvider.ts';
import { authEnv, callAs, createUser, type Credentials } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/**
 * OAuth2 / OpenID Connect logins against two real providers (oidc-provider) at once:
 * - `alpha` (provider A, claims in the ID token): confidential client, client_secret_basic,
 *   role from the `role` claim without a mapping, not strict.
 * - `beta` (provider B, claims only from userinfo): public client with PKCE, groups `staff` or
 *   `admins` allowed, role `roles[0]` through a mapping, strict.
 * - `gamma` (provider A): client_secret_post, sign-up off, no role path.
 * - `delta` (provider A): the email from `preferred_username`, the role from a conditional expression.
 * - `epsilon` (provider A): a client the provider grants everything but `openid`, so its token
 *   response has no ID token (a plain OAuth2 server) → `no_oidc_support`.
 * - `zeta` (provider A): a confidential client (client_secret_basic) that also uses PKCE; the role
 *   is a constant.
 * - `eta` (provider A): strict without a mapping: the value must itself name a role.
 * - `theta` (provider A): groups from a namespaced claim (a quoted JMESPath key).
 * - a second server under the root path `/loupe`, with `alpha` as its only provider.
 */
type Ctx = { server: TestServer; rooted: TestServer; a: OidcPeer; b: OidcPeer; admin: Credentials; appHost: string };
const test = suite<Ctx>('oauth2 logins', {} as Ctx);

test.before(async (ctx) => {
  ctx.a = await startOidcProvider({ idTokenHasClaims: true, withholdOpenidFrom: ['epsilon-client'] });
  ctx.b = await startOidcProvider({ idTokenHasClaims: false });
  const env = authEnv({
    SERVICE_OAUTH2_ALPHA_CLIENT_ID: 'alpha-client',
    SERVICE_OAUTH2_ALPHA_CLIENT_SECRET: 'alpha-secret-value-1',
    SERVICE_OAUTH2_ALPHA_OIDC_CONFIG_URL: ctx.a.configUrl,
    SERVICE_OAUTH2_ALPHA_ROLE_ATTRIBUTE_PATH: 'role',
    SERVICE_OAUTH2_BETA_CLIENT_ID: 'beta-client',
    SERVICE_OAUTH2_BETA_TOKEN_ENDPOINT_AUTH_METHOD: 'none',
    SERVICE_OAUTH2_BETA_USE_PKCE: 'true',
    SERVICE_OAUTH2_BETA_OIDC_CONFIG_URL: ctx.b.configUrl,
    SERVICE_OAUTH2_BETA_DISPLAY_NAME: 'Beta Corp SSO',
    SERVICE_OAUTH2_BETA_SCOPES: 'groups role',
    SERVICE_OAUTH2_BETA_GROUPS_ATTRIBUTE_PATH: 'groups',
    SERVICE_OAUTH2_BETA_ALLOWED_GROUPS: 'staff, admins',
    SERVICE_OAUTH2_BETA_ROLE_ATTRIBUTE_PATH: 'roles[0]',
    SERVICE_OAUTH2_BETA_ROLE_MAPPING: 'lead:ADMIN,dev:member',
    SERVICE_OAUTH2_BETA_ROLE_ATTRIBUTE_STRICT: 'true',
    SERVICE_OAUTH2_GAMMA_CLIENT_ID: 'gamma-client',
    SERVICE_OAUTH2_GAMMA_CLIENT_SECRET: 'gamma-secret-value-1',
    SERVICE_OAUTH2_GAMMA_TOKEN_ENDPOINT_AUTH_METHOD: 'client_secret_post',
    SERVICE_OAUTH2_GAMMA_OIDC_CONFIG_URL: ctx.a.configUrl,
    SERVICE_OAUTH2_GAMMA_ALLOW_SIGN_UP: 'false',
    SERVICE_OAUTH2_DELTA_CLIENT_ID: 'delta-client',
    SERVICE_OAUTH2_DELTA_CLIENT_SECRET: 'delta-secret-value-1',
    SERVICE_OAUTH2_DELTA_OIDC_CONFIG_URL: ctx.a.configUrl,
    SERVICE_OAUTH2_DELTA_EMAIL_ATTRIBUTE_PATH: 'preferred_username',
    SERVICE_OAUTH2_DELTA_ROLE_ATTRIBUTE_PATH: "contains(teams || `[]`, 'ops') && 'ADMIN' || 'MEMBER'",
    SERVICE_OAUTH2_EPSILON_CLIENT_ID: 'epsilon-client',
    SERVICE_OAUTH2_EPSILON_CLIENT_SECRET: 'epsilon-secret-value-1',
    SERVICE_OAUTH2_EPSILON_OIDC_CONFIG_URL: ctx.a.configUrl,
    SERVICE_OAUTH2_ZETA_CLIENT_ID: 'zeta-client',
    SERVICE_OAUTH2_ZETA_CLIENT_SECRET: 'zeta-secret-value-1',
    SERVICE_OAUTH2_ZETA_USE_PKCE: 'true',
    SERVICE_OAUTH2_ZETA_OIDC_CONFIG_URL: ctx.a.configUrl,
    SERVICE_OAUTH2_ZETA_ROLE_ATTRIBUTE_PATH: "'member'",
    SERVICE_OAUTH2_ETA_CLIENT_ID: 'eta-client',
    SERVICE_OAUTH2_ETA_CLIENT_SECRET: 'eta-secret-value-1',
    SERVICE_OAUTH2_ETA_OIDC_CONFIG_URL: ctx.a.configUrl,
    SERVICE_OAUTH2_ETA_ROLE_ATTRIBUTE_PATH: 'role',
    SERVICE_OAUTH2_ETA_ROLE_ATTRIBUTE_STRICT: 'true',
    SERVICE_OAUTH2_THETA_CLIENT_ID: 'theta-client',
    SERVICE_OAUTH2_THETA_CLIENT_SECRET: 'theta-secret-value-1',
    SERVICE_OAUTH2_THETA_OIDC_CONFIG_URL: ctx.a.configUrl,
    SERVICE_OAUTH2_THETA_SCOPES: 'groups',
    SERVICE_OAUTH2_THETA_GROUPS_ATTRIBUTE_PATH: '"https://loupe.test/groups"',
    SERVICE_OAUTH2_THETA_ALLOWED_GROUPS: 'engineering',
  });
  ctx.server = await startTestServer({ env });
  ctx.admin = { bearer: env.SERVICE_ADMIN_SECRET };
  ctx.appHost = new URL(ctx.server.baseUrl).host;
  ctx.rooted = await startTestServer({
    env: authEnv({
      SERVICE_HOST_ROOT_PATH: '/loupe',
      SERVICE_OAUTH2_ALPHA_CLIENT_ID: 'rooted-client',
      SERVICE_OAUTH2_ALPHA_CLIENT_SECRET: 'rooted-secret-value-1',
      SERVICE_OAUTH2_ALPHA_OIDC_CONFIG_URL: ctx.a.configUrl,
    }),
  });
  const callback = (idp: string) => `${ctx.server.baseUrl}/oauth2/${idp}/tokens`;
  ctx.a.configure([
    { client_id: 'alpha-client', client_secret: 'alpha-secret-value-1', redirect_uris: [callback('alpha')] },
    {
      client_id: 'gamma-client',
      client_secret: 'gamma-secret-value-1',
      token_endpoint_auth_method: 'client_secret_post',
      redirect_uris: [callback('gamma')],
    },
    { client_id: 'delta-client', client_secret: 'delta-secret-value-1', redirect_uris: [callback('delta')] },
    { client_id: 'epsilon-client', client_secret: 'epsilon-secret-value-1', redirect_uris: [callback('epsilon')] },
    { client_id: 'zeta-client', client_secret: 'zeta-secret-value-1', redirect_uris: [callback('zeta')] },
    { client_id: 'eta-client', client_secret: 'eta-secret-value-1', redirect_uris: [callback('eta')] },
    { client_id: 'theta-client', client_secret: 'theta-secret-value-1', redirect_uris: [callback('theta')] },
    { client_id: 'rooted-client', client_secret: 'rooted-secret-value-1', redirect_uris: [`${ctx.rooted.baseUrl}/oauth2/alpha/tokens`] },
  ]);
  ctx.b.configure([{ client_id: 'beta-client', token_endpoint_auth_method: 'none', redirect_uris: [callback('beta')] }]);
});

test.after(async (ctx) => {
  await ctx.server?.close();
  await ctx.rooted?.close();
  await ctx.a?.close();
  await ctx.b?.close();
});

/** Signs `account` in at the provider, then follows the browser's redirects from our login route until it lands back on the app. */
const loginVia = async (ctx: Ctx, idp: string, peer: OidcPeer, account: OidcAccount, returnUrl?: string, server = ctx.server) => {
  peer.signInAs(account);
  const jar: CookieJar = new Map();
  const query = returnUrl === undefined ? '' : `?returnUrl=${encodeURIComponent(returnUrl)}`;
  const appHost = new URL(server.baseUrl).host;
  const nav = await navigate(
    `${server.baseUrl}/oauth2/${idp}/login${query}`,
    jar,
    (url) => url.host === appHost && !url.pathname.includes('/oauth2/'),
  );
  const cookies = jar.get(appHost) ?? new Map<string, string>();
  const access = cookies.get('loupe-access-token');
  return {
    nav,
    error: nav.final.searchParams.get('error'),
    landed: nav.final.pathname + nav.final.search,
    as: access === undefined ? null : ({ cookie: `loupe-access-token=${access}` } as Credentials),
  };
};

const me = async (ctx: Ctx, as: Credentials | null, server = ctx.server) => {
  assert.ok(as, 'a session cookie was set');
  const reply = await callAs(server, 'GET', '/v1/user', { as });
  assert.is(reply.status, 200);
  return reply.body.data as {
    id: string;
    username: string;
    email: string;
    role: string;
    auth_method: string;
    oauth2_client_id?: string;
    oauth2_user_id?: string;
  };
};

const eventsOf = async (ctx: Ctx, type: string): Promise<Record<string, unknown>[]> =>
  (await ctx.server.store.readAll(START, 100_000)).filter((e) => e.type === type).map((e) => e.data as Record<string, unknown>);

test('a new user signs up through a confidential client: OAUTH2 user, role from the ID token, session cookies, flow cookie Lax and short-lived', async (ctx) => {
  const result = await loginVia(
    ctx,
    'alpha',
    ctx.a,
    { sub: 'ann-1', email: 'Ann@Example.com', name: 'Ann Alpha', role: 'member' },
    '/projects',
  );
  assert.is(result.error, null);
  assert.is(result.landed, '/projects', 'the return URL is honoured');
  const first = result.nav.hops[0]!;
  assert.is(first.status, 302);
  const location = new URL(first.location!);
  assert.is(location.origin, ctx.a.issuer);
  assert.is(location.searchParams.get('scope'), 'openid email profile');
  assert.is(location.searchParams.get('redirect_uri'), `${ctx.server.baseUrl}/oauth2/alpha/tokens`);
  assert.ok(location.searchParams.get('state'));
  assert.ok(location.searchParams.get('nonce'));
  assert.is(location.searchParams.get('code_challenge'), null, 'no PKCE unless configured');
  assert.match(first.setCookies.join('\n'), /loupe-oauth2-flow=[^;]+; Max-Age=900; Path=\/; SameSite=Lax; HttpOnly/);
  const callbackHop = result.nav.hops.find((h) => h.url.includes('/oauth2/alpha/tokens'))!;
  assert.match(callbackHop.setCookies.join('\n'), /loupe-oauth2-flow=; Max-Age=0/);
  assert.match(callbackHop.setCookies.join('\n'), /loupe-access-token=[^;]+; Max-Age=600; Path=\/; SameSite=Strict; HttpOnly/);
  const user = await me(ctx, result.as);
  assert.equal([user.username, user.email, user.role, user.auth_method], ['Ann Alpha', 'ann@example.com', 'MEMBER', 'OAUTH2']);
  const created = (await eventsOf(ctx, 'UserCreated')).find((d) => d.email === 'ann@example.com')!;
  assert.equal(
    [created.authMethod, created.oauth2ClientId, created.oauth2UserId, created.passwordHash],
    ['OAUTH2', 'alpha-client', 'ann-1', null],
  );
  const started = (await eventsOf(ctx, 'SessionStarted')).filter((d) => d.userId === created.userId);
  assert.equal(
    started.map((d) => d.via),
    ['oauth2'],
  );
});

test('role rules 1 and 3-4 (not strict): synced on every login, a role name used as is, SYSTEM or nonsense is VIEWER', async (ctx) => {
  const ann = { sub: 'ann-1', email: 'ann@example.com', name: 'Ann Alpha' };
  assert.is((await me(ctx, (await loginVia(ctx, 'alpha', ctx.a, { ...ann, role: 'Admin' })).as)).role, 'ADMIN');
  assert.is((await me(ctx, (await loginVia(ctx, 'alpha', ctx.a, { ...ann, role: 'SYSTEM' })).as)).role, 'VIEWER');
  assert.is((await me(ctx, (await loginVia(ctx, 'alpha', ctx.a, { ...ann, role: 'superhero' })).as)).role, 'VIEWER');
  assert.is((await me(ctx, (await loginVia(ctx, 'alpha', ctx.a, { ...ann })).as)).role, 'VIEWER', 'missing role: VIEWER');
  const same = await loginVia(ctx, 'alpha', ctx.a, { ...ann });
  const user = await me(ctx, same.as);
  assert.is(user.username, 'Ann Alpha');
  const synced = (await eventsOf(ctx, 'RoleChanged')).filter((d) => d.syncedFrom === 'oauth2');
  assert.ok(synced.length >= 6, 'a role-synced event on every login, changed or not');
  assert.equal(synced.at(-1), { ...synced.at(-1), role: 'VIEWER', previousRole: 'VIEWER' });
});

test('public client with PKCE, claims from userinfo: groups allow, the mapping gives the role', async (ctx) => {
  const before = ctx.b.requests.length;
  const result = await loginVia(ctx, 'beta', ctx.b, {
    sub: 'bo-1',
    email: 'bo@example.com',
    name: 'Bo',
    groups: ['staff'],
    roles: ['lead'],
  });
  assert.is(result.error, null);
  const location = new URL(result.nav.hops[0]!.location!);
  assert.is(location.searchParams.get('code_challenge_method'), 'S256');
  assert.ok(location.searchParams.get('code_challenge'));
  assert.is(location.searchParams.get('scope'), 'openid email profile groups role');
  assert.ok(
    ctx.b.requests.slice(before).some((path) => path.startsWith('/me')),
    'userinfo was fetched',
  );
  const user = await me(ctx, result.as);
  assert.equal([user.role, user.auth_method], ['ADMIN', 'OAUTH2']);
  const dev = await loginVia(ctx, 'beta', ctx.b, { sub: 'di-1', email: 'di@example.com', name: 'Di', groups: 'admins', roles: ['dev'] });
  assert.is((await me(ctx, dev.as)).role, 'MEMBER');
});

test('groups refuse, strict refuses an unmapped or missing role (rules 4 and 5)', async (ctx) => {
  const outsider = await loginVia(ctx, 'beta', ctx.b, { sub: 'ed-1', email: 'ed@example.com', groups: ['guests'], roles: ['lead'] });
  assert.is(outsider.error, 'not_in_allowed_group');
  assert.is(outsider.as, null);
  const noGroups = await loginVia(ctx, 'beta', ctx.b, { sub: 'ed-2', email: 'ed2@example.com', roles: ['lead'] });
  assert.is(noGroups.error, 'not_in_allowed_group');
  const unmapped = await loginVia(ctx, 'beta', ctx.b, { sub: 'fi-1', email: 'fi@example.com', groups: ['staff'], roles: ['intern'] });
  assert.is(unmapped.error, 'role_denied');
  const missing = await loginVia(ctx, 'beta', ctx.b, { sub: 'fi-2', email: 'fi2@example.com', groups: ['staff'] });
  assert.is(missing.error, 'role_denied');
  const caseMatters = await loginVia(ctx, 'beta', ctx.b, { sub: 'fi-3', email: 'fi3@example.com', groups: ['staff'], roles: ['LEAD'] });
  assert.is(caseMatters.error, 'role_denied', 'provider role keys are case-sensitive');
  assert.is(caseMatters.landed, '/login?error=role_denied');
  assert.is(caseMatters.nav.hops.at(-1)!.status, 307);
});

test('sign-up off: an unknown user and a local-password user are refused; an admin-created OAUTH2 user signs in and keeps the role (rule 2)', async (ctx) => {
  const unknown = await loginVia(ctx, 'gamma', ctx.a, { sub: 'gu-1', email: 'gus@example.com', name: 'Gus' });
  assert.is(unknown.error, 'sign_in_not_allowed');
  await createUser(ctx.server, ctx.admin, { email: 'lola@example.com', username: 'lola', role: 'MEMBER', password: 'lola-pw-123' });
  const local = await loginVia(ctx, 'gamma', ctx.a, { sub: 'lo-1', email: 'LOLA@example.com', name: 'Lola' });
  assert.is(local.error, 'sign_in_not_allowed');
  const created = await callAs(ctx.server, 'POST', '/v1/users', {
    as: ctx.admin,
    json: { user: { email: 'Gus@Example.com', username: 'gus', role: 'MEMBER', auth_method: 'OAUTH2' }, send_welcome_email: false },
  });
  assert.is(created.status, 201);
  const again = await loginVia(ctx, 'gamma', ctx.a, { sub: 'gu-1', email: 'gus@example.com', name: 'Gus' });
  assert.is(again.error, null);
  const user = await me(ctx, again.as);
  assert.equal([user.username, user.role, user.auth_method], ['gus', 'MEMBER', 'OAUTH2']);
});

test('sign-up off: the user linked by email keeps signing in after its email changes at the provider; a clash with another account is email_in_use', async (ctx) => {
  // `gus` was created by an admin and linked by email on its first gamma login (the test above).
  const linked = await loginVia(ctx, 'gamma', ctx.a, { sub: 'gu-1', email: 'gus@example.com', name: 'Gus' });
  const before = await me(ctx, linked.as);
  assert.equal([before.oauth2_client_id, before.oauth2_user_id], ['gamma-client', 'gu-1'], 'the provider and sub are recorded');
  assert.ok(
    (await eventsOf(ctx, 'ExternalIdentityLinked')).some((d) => d.provider === 'gamma' && d.oauth2UserId === 'gu-1'),
    'an ExternalIdentityLinked event names the IdP',
  );
  const moved = await loginVia(ctx, 'gamma', ctx.a, { sub: 'gu-1', email: '  Gus.Renamed@Example.com ', name: 'Gus' });
  assert.is(moved.error, null, 'matched by sub, not by the (new, unknown) email');
  const after = await me(ctx, moved.as);
  assert.equal([after.id, after.email, after.username, after.role], [before.id, 'gus.renamed@example.com', 'gus', 'MEMBER']);
  assert.ok(
    (await eventsOf(ctx, 'EmailChanged')).some(
      (d) => d.email === 'gus.renamed@example.com' && d.previousEmail === 'gus@example.com' && d.syncedFrom === 'oauth2',
    ),
  );
  const clash = await loginVia(ctx, 'gamma', ctx.a, { sub: 'gu-1', email: 'lola@example.com', name: 'Gus' });
  assert.is(clash.error, 'email_in_use');
  assert.is(clash.as, null);
  const users = await callAs(ctx.server, 'GET', '/v1/users', { as: ctx.admin });
  const emails = (users.body.data as { email: string }[]).map((u) => u.email);
  assert.ok(emails.includes('gus.renamed@example.com') && emails.includes('lola@example.com'), 'nothing changed');
  const someoneElse = await loginVia(ctx, 'gamma', ctx.a, { sub: 'gu-2', email: 'gus.renamed@example.com', name: 'Impostor' });
  assert.is(someoneElse.error, 'sign_in_not_allowed', 'another sub under the same client is another person');
});

test('an admin-created user with the provider ids is found by them, whatever email the provider reports; the same ids twice is a 409', async (ctx) => {
  const provision = (email: string, username: string) =>
    callAs(ctx.server, 'POST', '/v1/users', {
      as: ctx.admin,
      json: {
        user: { email, username, role: 'MEMBER', auth_method: 'OAUTH2', oauth2_client_id: 'gamma-client', oauth2_user_id: 'pia-1' },
        send_welcome_email: false,
      },
    });
  assert.is((await provision('pia.old@example.com', 'pia')).status, 201);
  const result = await loginVia(ctx, 'gamma', ctx.a, { sub: 'pia-1', email: 'pia@example.com', name: 'Pia' });
  assert.is(result.error, null, 'sign-up is off, yet the user is found by client id + sub');
  const user = await me(ctx, result.as);
  assert.equal([user.username, user.email, user.role], ['pia', 'pia@example.com', 'MEMBER']);
  const twice = await provision('pia.two@example.com', 'pia-two');
  assert.is(twice.status, 409);
  assert.match(twice.body.detail, /external identity/);
});

test('sign-up on: a user found by sub takes the email the provider now reports', async (ctx) => {
  const first = await loginVia(ctx, 'alpha', ctx.a, { sub: 'zed-1', email: 'zed@example.com', name: 'Zed', role: 'member' });
  const before = await me(ctx, first.as);
  const moved = await loginVia(ctx, 'alpha', ctx.a, { sub: 'zed-1', email: 'zed@new.example.com', name: 'Zed', role: 'member' });
  assert.is(moved.error, null);
  const after = await me(ctx, moved.as);
  assert.equal([after.id, after.email], [before.id, 'zed@new.example.com']);
  const fresh = await loginVia(ctx, 'alpha', ctx.a, { sub: 'zed-2', email: 'zed@example.com', name: 'Zed Two', role: 'member' });
  assert.is(fresh.error, null, 'the old address is free for someone else');
  assert.is.not((await me(ctx, fresh.as)).id, before.id);
});

test('a provider that issues no ID token (openid not granted: plain OAuth2) fails with no_oidc_support', async (ctx) => {
  const asked = ctx.a.requests.length;
  const result = await loginVia(ctx, 'epsilon', ctx.a, { sub: 'oa-1', email: 'oa@example.com', name: 'Plain' });
  assert.is(result.error, 'no_oidc_support');
  assert.is(result.landed, '/login?error=no_oidc_support');
  assert.is(result.nav.hops.at(-1)!.status, 307);
  assert.is(result.as, null);
  assert.ok(
    ctx.a.requests.slice(asked).some((path) => path.startsWith('/token')),
    'the token endpoint was asked (the failure is its answer, not the flow before it)',
  );
  assert.match(ctx.server.logLines.join('\n'), /no_oidc_support/);
});

test('PKCE is independent of the client secret: a confidential client with PKCE; a constant role path in single quotes', async (ctx) => {
  const result = await loginVia(ctx, 'zeta', ctx.a, { sub: 'ze-1', email: 'ze@example.com', name: 'Ze', role: 'admin' });
  assert.is(result.error, null);
  const location = new URL(result.nav.hops[0]!.location!);
  assert.is(location.searchParams.get('code_challenge_method'), 'S256');
  assert.ok(location.searchParams.get('code_challenge'));
  const user = await me(ctx, result.as);
  assert.equal([user.role, user.auth_method], ['MEMBER', 'OAUTH2'], "the constant wins over the provider's role claim");
});

test('strict without a mapping (rules 3 and 4): a value naming a role is used as is, anything else or nothing is denied', async (ctx) => {
  const viewer = await loginVia(ctx, 'eta', ctx.a, { sub: 'et-1', email: 'et@example.com', name: 'Et', role: 'Viewer' });
  assert.is((await me(ctx, viewer.as)).role, 'VIEWER');
  const invalid = await loginVia(ctx, 'eta', ctx.a, { sub: 'et-1', email: 'et@example.com', name: 'Et', role: 'superhero' });
  assert.is(invalid.error, 'role_denied');
  const system = await loginVia(ctx, 'eta', ctx.a, { sub: 'et-1', email: 'et@example.com', name: 'Et', role: 'SYSTEM' });
  assert.is(system.error, 'role_denied', 'SYSTEM is never a role a provider gives');
  const missing = await loginVia(ctx, 'eta', ctx.a, { sub: 'et-1', email: 'et@example.com', name: 'Et' });
  assert.is(missing.error, 'role_denied');
  assert.is(missing.as, null);
});

test('a groups path with a special-character key, double-quoted: the namespaced claim decides who may sign in', async (ctx) => {
  const claim = 'https://loupe.test/groups';
  const engineer = await loginVia(ctx, 'theta', ctx.a, { sub: 'th-1', email: 'th1@example.com', name: 'Th', [claim]: ['engineering'] });
  assert.is(engineer.error, null);
  assert.is((await me(ctx, engineer.as)).role, 'VIEWER', 'groups decide who signs in, not the role (rule 5)');
  const sales = await loginVia(ctx, 'theta', ctx.a, {
    sub: 'th-2',
    email: 'th2@example.com',
    name: 'Th2',
    [claim]: ['sales'],
    groups: ['engineering'],
  });
  assert.is(sales.error, 'not_in_allowed_group', 'only the configured claim counts');
});

test('under a root path the redirect URL is <origin>/<root-path>/oauth2/<idp>/tokens and the login lands under it', async (ctx) => {
  const result = await loginVia(ctx, 'alpha', ctx.a, { sub: 'ro-1', email: 'ro@example.com', name: 'Ro' }, '/projects', ctx.rooted);
  assert.is(result.error, null);
  const location = new URL(result.nav.hops[0]!.location!);
  assert.is(location.searchParams.get('redirect_uri'), `${ctx.rooted.baseUrl}/oauth2/alpha/tokens`);
  assert.match(ctx.rooted.baseUrl, /\/loupe$/);
  assert.is(result.landed, '/loupe/projects');
  const user = await me(ctx, result.as, ctx.rooted);
  assert.equal([user.email, user.auth_method, user.oauth2_client_id], ['ro@example.com', 'OAUTH2', 'rooted-client']);
});

test('sign-up on: an email held by a local user is email_in_use (never taken over)', async (ctx) => {
  await createUser(ctx.server, ctx.admin, { email: 'mo@example.com', username: 'mo', role: 'VIEWER', password: 'mo-pw-1234' });
  const result = await loginVia(ctx, 'alpha', ctx.a, { sub: 'mo-1', email: 'mo@example.com', name: 'Mo' });
  assert.is(result.error, 'email_in_use');
  assert.is(result.as, null);
});

test('a token without an email claim fails with missing_email_scope; EMAIL_ATTRIBUTE_PATH to another claim fixes it; a conditional role path', async (ctx) => {
  const noEmail = await loginVia(ctx, 'alpha', ctx.a, { sub: 'ne-1', name: 'Nemo', preferred_username: 'nemo@example.com' });
  assert.is(noEmail.error, 'missing_email_scope');
  const viaPath = await loginVia(ctx, 'delta', ctx.a, { sub: 'ne-1', name: 'Nemo', preferred_username: 'Nemo@Example.com' });
  assert.is(viaPath.error, null);
  const user = await me(ctx, viaPath.as);
  assert.equal([user.email, user.role], ['nemo@example.com', 'MEMBER']);
  const ops = await loginVia(ctx, 'delta', ctx.a, { sub: 'ne-1', name: 'Nemo', preferred_username: 'nemo@example.com', teams: ['ops'] });
  assert.is((await me(ctx, ops.as)).role, 'ADMIN');
});

test('the same person through two providers is two identities (identity = client id + sub)', async (ctx) => {
  const viaAlpha = await loginVia(ctx, 'alpha', ctx.a, { sub: 'same-1', email: 'twin@example.com', name: 'Twin', role: 'viewer' });
  assert.is(viaAlpha.error, null);
  const viaDelta = await loginVia(ctx, 'delta', ctx.a, { sub: 'same-1', preferred_username: 'twin@example.com', name: 'Twin' });
  assert.is(viaDelta.error, 'email_in_use');
});

test('flow failures end on the login page with a code: unknown provider, provider error, forged or missing state, unsafe return URL', async (ctx) => {
  const unknown = await callAs(ctx.server, 'GET', '/oauth2/nope/login');
  assert.is(unknown.status, 307);
  assert.is(unknown.headers.get('location'), '/login?error=unknown_idp');
  const unsafe = await callAs(ctx.server, 'GET', `/oauth2/alpha/login?returnUrl=${encodeURIComponent('//evil.example.com/x')}`);
  assert.is(unsafe.headers.get('location'), '/login?error=unsafe_return_url');
  const denied = await callAs(ctx.server, 'GET', '/oauth2/alpha/tokens?error=access_denied&state=x');
  assert.is(denied.headers.get('location'), '/login?error=auth_failed');
  const noCookie = await callAs(ctx.server, 'GET', '/oauth2/alpha/tokens?code=abc&state=xyz');
  assert.is(noCookie.headers.get('location'), '/login?error=invalid_state');
  const started = await callAs(ctx.server, 'POST', '/oauth2/alpha/login');
  assert.is(started.status, 302, 'POST starts the flow too (the login page submits a form)');
  const flow = started.cookies['loupe-oauth2-flow']!;
  const wrongState = await callAs(ctx.server, 'GET', '/oauth2/alpha/tokens?code=abc&state=not-the-state', {
    headers: { cookie: `loupe-oauth2-flow=${flow}` },
  });
  assert.is(wrongState.headers.get('location'), '/login?error=invalid_state');
  const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
  const otherProvider = await callAs(ctx.server, 'GET', `/oauth2/delta/tokens?code=abc&state=${state}`, {
    headers: { cookie: `loupe-oauth2-flow=${flow}` },
  });
  assert.is(otherProvider.headers.get('location'), '/login?error=invalid_state', 'a flow cookie is for its own provider only');
  const badCode = await callAs(
    ctx.server,
    'GET',
    `/oauth2/alpha/tokens?code=made-up&state=${state}&iss=${encodeURIComponent(ctx.a.issuer)}`,
    {
      headers: { cookie: `loupe-oauth2-flow=${flow}` },
    },
  );
  assert.is(badCode.headers.get('location'), '/login?error=oauth_error');
  const logs = ctx.server.logLines.join('\n');
  for (const secret of ['alpha-secret-value-1', 'gamma-secret-value-1', flow])
    assert.not.ok(logs.includes(secret), 'no secret in the logs');
});

test('DISPLAY_NAME: the page config lists every provider with its label (set, or generated from the name)', async (ctx) => {
  const reply = await callAs(ctx.server, 'GET', '/ui-config.json');
  assert.is(reply.status, 200);
  const providers = (reply.body.oauth2Providers as { name: string; displayName: string; autoLogin: boolean }[]).map((p) => [
    p.name,
    p.displayName,
    p.autoLogin,
  ]);
  assert.equal(
    providers.find(([name]) => name === 'beta'),
    ['beta', 'Beta Corp SSO', false],
  );
  assert.equal(
    providers.find(([name]) => name === 'alpha'),
    ['alpha', 'Alpha', false],
  );
  assert.is(providers.length, 8);
});

test.run();
