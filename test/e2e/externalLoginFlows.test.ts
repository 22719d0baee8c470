import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { type OidcPeer, startOidcProvider } from '../peers/oidcProvider.ts';
import { BASE_DN, type SlapdPeer, startSlapd } from '../peers/slapd.ts';
import { launchBrowser, openPage, screenshotLeftOpen } from './support/browser.ts';
import { unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';

/**
 * A person signs in through the browser with an OpenID Connect provider (oidc-provider) and with
 * an LDAP directory (slapd), both real and started here; a refused provider login shows its
 * message on the login page.
 */
type Me = { data: { username: string; role: string; auth_method: string } };
const whoAmI = (page: Page, server: UiServer): Promise<Me> =>
  page.evaluate(async (url) => (await fetch(url)).json() as Promise<Me>, server.href('/v1/user'));

type Ctx = { server: UiServer; browser: Browser; oidc: OidcPeer; ldap: SlapdPeer };
const test = suite<Ctx>('UI, external logins', {} as Ctx);

test.before(async (ctx) => {
  ctx.oidc = await startOidcProvider({ idTokenHasClaims: true });
  ctx.ldap = await startSlapd();
  await ctx.ldap.add(`uid=lee,ou=people,${BASE_DN}`, {
    objectClass: ['inetOrgPerson'],
    uid: 'lee',
    cn: 'lee',
    sn: 'lee',
    mail: 'lee@example.com',
    displayName: 'Lee Directory',
    userPassword: 'lee-password-1',
  });
  ctx.server = await startUiServer({
    auth: true,
    env: {
      SERVICE_OAUTH2_ACME_CLIENT_ID: 'acme-client',
      SERVICE_OAUTH2_ACME_CLIENT_SECRET: 'acme-secret-1',
      SERVICE_OAUTH2_ACME_OIDC_CONFIG_URL: ctx.oidc.configUrl,
      SERVICE_OAUTH2_ACME_DISPLAY_NAME: 'Acme SSO',
      SERVICE_OAUTH2_ACME_ROLE_ATTRIBUTE_PATH: 'role',
      SERVICE_LDAP_HOST: '127.0.0.1',
      SERVICE_LDAP_PORT: String(ctx.ldap.port),
      SERVICE_LDAP_TLS_CA_CERT_FILE: ctx.ldap.caFile,
      SERVICE_LDAP_USER_SEARCH_BASE_DNS: JSON.stringify([`ou=people,${BASE_DN}`]),
      SERVICE_LDAP_USER_SEARCH_FILTER: '(uid=%s)',
      SERVICE_LDAP_ATTR_EMAIL: 'mail',
      SERVICE_LDAP_GROUP_ROLE_MAPPINGS: '[{"group_dn": "*", "role": "MEMBER"}]',
    },
  });
  ctx.oidc.configure([
    { client_id: 'acme-client', client_secret: 'acme-secret-1', redirect_uris: [`${ctx.server.baseUrl}/oauth2/acme/tokens`] },
  ]);
  ctx.browser = await launchBrowser();
});

test.after.each(() => screenshotLeftOpen('external-login'));
test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
  await ctx.oidc?.close();
  await ctx.ldap?.close();
});

test('sign in with the OpenID Connect provider button', async ({ server, browser, oidc }) => {
  oidc.signInAs({ sub: 'ola-1', email: 'ola@example.com', name: 'Ola Oidc', role: 'admin' });
  const { context, page, problems } = await openPage(browser);
  await page.goto(server.href('/login'));
  await page.getByRole('link', { name: 'Sign in with Acme SSO' }).waitFor();
  await screenshot(page, 'login-external');
  await page.getByRole('link', { name: 'Sign in with Acme SSO' }).click();
  await page.waitForURL(/\/projects/);
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
  const me = await whoAmI(page, server);
  assert.equal([me.data.username, me.data.role, me.data.auth_method], ['Ola Oidc', 'ADMIN', 'OAUTH2']);
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('sign in with the LDAP form', async ({ server, browser }) => {
  const { context, page, problems } = await openPage(browser);
  await page.goto(server.href('/login'));
  const form = page.getByRole('form', { name: 'LDAP sign-in' });
  await form.getByLabel('Username').fill('lee');
  await form.getByLabel('Password').fill('wrong');
  await form.getByRole('button', { name: 'Sign in with LDAP' }).click();
  await page.getByRole('alert').getByText('Invalid username and/or password').waitFor();
  await form.getByLabel('Password').fill('lee-password-1');
  await form.getByRole('button', { name: 'Sign in with LDAP' }).click();
  await page.waitForURL(/\/projects/);
  const me = await whoAmI(page, server);
  assert.equal([me.data.username, me.data.role, me.data.auth_method], ['Lee Directory', 'MEMBER', 'LDAP']);
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a refused provider login shows its message; an unknown code shows nothing', async ({ server, browser }) => {
  const { context, page } = await openPage(browser);
  await page.goto(server.href('/login?error=sign_in_not_allowed'));
  await page.getByRole('alert').getByText('Sign-in not allowed: ask an administrator to create your account first.').waitFor();
  await page.goto(server.href('/login?error=%3Cb%3Egotcha'));
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  assert.is(await page.getByRole('alert').count(), 0);
  await context.close();
});

test('AUTO_LOGIN with password sign-in off: opening the app signs in through the provider without a click', async ({ browser, oidc }) => {
  const server = await startUiServer({
    auth: true,
    env: {
      SERVICE_DISABLE_BASIC_AUTH: 'true',
      SERVICE_OAUTH2_AUTO_CLIENT_ID: 'auto-client',
      SERVICE_OAUTH2_AUTO_TOKEN_ENDPOINT_AUTH_METHOD: 'none',
      SERVICE_OAUTH2_AUTO_USE_PKCE: 'true',
      SERVICE_OAUTH2_AUTO_OIDC_CONFIG_URL: oidc.configUrl,
      SERVICE_OAUTH2_AUTO_AUTO_LOGIN: 'true',
    },
  });
  try {
    oidc.configure([
      { client_id: 'acme-client', client_secret: 'acme-secret-1', redirect_uris: [`${server.baseUrl}/oauth2/acme/tokens`] },
      { client_id: 'auto-client', token_endpoint_auth_method: 'none', redirect_uris: [`${server.baseUrl}/oauth2/auto/tokens`] },
    ]);
    oidc.signInAs({ sub: 'ava-1', email: 'ava@example.com', name: 'Ava Auto' });
    const { context, page } = await openPage(browser);
    await page.goto(server.href('/projects'));
    await page.waitForURL(/\/projects/);
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    const me = await whoAmI(page, server);
    assert.equal([me.data.username, me.data.role, me.data.auth_method], ['Ava Auto', 'VIEWER', 'OAUTH2']);
    await context.close();
    // A full load of the login page (a bookmark, a reload): the server itself sends it to the provider.
    oidc.signInAs({ sub: 'ava-1', email: 'ava@example.com', name: 'Ava Auto' });
    const direct = await openPage(browser);
    const hops: string[] = [];
    direct.page.on('response', (response) => {
      if (response.status() === 307 && new URL(response.url()).pathname === '/login') hops.push(response.headers().location ?? '');
    });
    await direct.page.goto(server.href('/login?returnUrl=%2Fprojects'));
    await direct.page.waitForURL(/\/projects/);
    await direct.page.getByRole('heading', { name: 'Projects' }).waitFor();
    assert.equal(hops, ['/oauth2/auto/login?returnUrl=%2Fprojects']);
    assert.is((await whoAmI(direct.page, server)).data.auth_method, 'OAUTH2');
    await direct.context.close();
    const failed = await openPage(browser);
    await failed.page.goto(server.href('/login?error=auth_failed'));
    await failed.page.getByRole('alert').getByText('Sign-in failed. Please try again.').waitFor();
    assert.ok(failed.page.url().includes('/login?error=auth_failed'), 'no auto-login loop after a failure');
    await failed.context.close();
  } finally {
    await server.close();
  }
});

test.run();
