import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type CookieJar, navigate, type OidcPeer, startOidcProvider } from '../../peers/oidcProvider.ts';
import { authEnv, callAs } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/**
 * `SERVICE_OAUTH2_<IDP>_AUTO_LOGIN` on the server, as in the reference: with password sign-in off,
 * `GET /login` is a 307 to the provider's login route (query kept), so a full page load of the
 * login page signs in without a click; with password sign-in on it changes nothing.
 */
type Ctx = { peer: OidcPeer; off: TestServer; on: TestServer };
const test = suite<Ctx>('oauth2 auto-login', {} as Ctx);

const provider = (configUrl: string, clientId: string) => ({
  SERVICE_OAUTH2_AUTO_CLIENT_ID: clientId,
  SERVICE_OAUTH2_AUTO_TOKEN_ENDPOINT_AUTH_METHOD: 'none',
  SERVICE_OAUTH2_AUTO_USE_PKCE: 'true',
  SERVICE_OAUTH2_AUTO_OIDC_CONFIG_URL: configUrl,
  SERVICE_OAUTH2_AUTO_AUTO_LOGIN: 'true',
});

test.before(async (ctx) => {
  ctx.peer = await startOidcProvider({ idTokenHasClaims: true });
  ctx.off = await startTestServer({ env: authEnv({ SERVICE_DISABLE_BASIC_AUTH: 'true', ...provider(ctx.peer.configUrl, 'off-client') }) });
  ctx.on = await startTestServer({ env: authEnv(provider(ctx.peer.configUrl, 'on-client')) });
  ctx.peer.configure([
    { client_id: 'off-client', token_endpoint_auth_method: 'none', redirect_uris: [`${ctx.off.baseUrl}/oauth2/auto/tokens`] },
    { client_id: 'on-client', token_endpoint_auth_method: 'none', redirect_uris: [`${ctx.on.baseUrl}/oauth2/auto/tokens`] },
  ]);
});

test.after(async (ctx) => {
  await ctx.off?.close();
  await ctx.on?.close();
  await ctx.peer?.close();
});

test('password sign-in off: loading /login goes to the provider and comes back signed in, to the return URL', async (ctx) => {
  ctx.peer.signInAs({ sub: 'au-1', email: 'au@example.com', name: 'Au' });
  const jar: CookieJar = new Map();
  const appHost = new URL(ctx.off.baseUrl).host;
  const nav = await navigate(
    `${ctx.off.baseUrl}/login?returnUrl=${encodeURIComponent('/projects')}`,
    jar,
    (url) => url.host === appHost && !url.pathname.includes('/oauth2/') && url.pathname !== '/login',
  );
  const [first, second] = nav.hops;
  assert.is(first!.status, 307);
  assert.is(first!.location, `/oauth2/auto/login?returnUrl=${encodeURIComponent('/projects')}`);
  assert.is(second!.status, 302);
  assert.is(new URL(second!.location!).origin, ctx.peer.issuer);
  assert.is(nav.final.pathname, '/projects');
  const access = jar.get(appHost)?.get('loupe-access-token');
  assert.ok(access, 'signed in');
  const me = await callAs(ctx.off, 'GET', '/v1/user', { as: { cookie: `loupe-access-token=${access}` } });
  assert.equal([me.body.data.email, me.body.data.auth_method], ['au@example.com', 'OAUTH2']);
});

test('password sign-in off: a failed sign-in shows the login page (no loop back to the provider)', async (ctx) => {
  const failed = await callAs(ctx.off, 'GET', '/login?error=auth_failed');
  assert.is.not(failed.status, 307);
  assert.is(failed.headers.get('location'), null);
});

test('password sign-in on: AUTO_LOGIN does not redirect /login (the page offers both)', async (ctx) => {
  const page = await callAs(ctx.on, 'GET', '/login');
  assert.is.not(page.status, 307);
  assert.is(page.headers.get('location'), null);
});

test.run();
