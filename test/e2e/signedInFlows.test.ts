import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { hrefOf, htmlPart, startSmtpSink } from '../peers/smtpSink.ts';
import { launchBrowser, openPage, screenshotLeftOpen, trackScripts } from './support/browser.ts';
import { signIn, submitLogin, unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';

/**
 * The UI with authentication on, in a real browser: the default admin's first sign-in and forced
 * password change, an admin's settings (a user, a key shown once, a masked secret), a viewer who
 * sees no write controls, a session renewed without losing the page, signing out, and a listed
 * admin who sets a password through "forgot password" and gets the management link.
 */

type Ctx = { server: UiServer; browser: Browser; smtp: Awaited<ReturnType<typeof startSmtpSink>> };
const test = suite<Ctx>('UI, auth on', {} as Ctx);

const ADMIN = 'admin@localhost';
const ADMIN_PASSWORD = 'a-New-admin-pw-42!';
const VIEWER = 'vera@example.com';
const MANAGEMENT_URL = 'https://manage.example.com/console';
const SMTP = { username: 'mailer', password: 'smtp-pass-123' };

test.before(async (ctx) => {
  ctx.smtp = await startSmtpSink(SMTP);
  ctx.server = await startUiServer({
    auth: true,
    env: {
      SERVICE_SMTP_HOSTNAME: '127.0.0.1',
      SERVICE_SMTP_PORT: String(ctx.smtp.port),
      SERVICE_SMTP_USERNAME: SMTP.username,
      SERVICE_SMTP_PASSWORD: SMTP.password,
      SERVICE_SMTP_TLS_MODE: 'none',
      // Olga is listed: she is created at start, without a password, and sees the management link.
      SERVICE_ADMINS: 'olga=olga@example.com',
      SERVICE_MANAGEMENT_URL: MANAGEMENT_URL,
      // The forms that set a password show the rules the server holds them to.
      SERVICE_ENABLE_STRONG_PASSWORD_POLICY: 'true',
    },
  });
  ctx.browser = await launchBrowser();
});

test.after.each(() => screenshotLeftOpen('auth'));

test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
  await ctx.smtp?.close();
});

test('the default admin signs in, must choose a new password, then lands on the projects', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  // Given a deep link opened while signed out
  await page.goto(server.href('/settings/secrets'));
  await page.waitForURL(/\/login\?returnTo=/);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await screenshot(page, 'login');

  // When the server never answers, the page says it is slow after 10 s and gives up after a minute
  // with a message (a fake clock runs the time at once); the button can be pressed again
  await page.clock.install();
  await page.route('**/auth/login', () => undefined);
  await submitLogin(page, ADMIN, 'admin');
  await page.getByRole('button', { name: 'Signing in…' }).waitFor();
  await page.clock.runFor(11_000);
  await page.getByTestId('sign-in-slow').waitFor();
  await page.clock.runFor(50_000);
  await page.getByRole('alert').getByText('The server did not answer within a minute', { exact: false }).waitFor();
  assert.is(await page.getByTestId('sign-in-slow').count(), 0);
  await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
  await screenshot(page, 'login-timed-out');
  await page.unroute('**/auth/login');

  // When a wrong password is sent, the server's message is shown
  await submitLogin(page, ADMIN, 'wrong');
  await page.getByRole('alert').getByText('Invalid email and/or password').waitFor();

  // When the initial password is used, the forced change comes first
  await submitLogin(page, ADMIN, 'admin');
  await page.waitForURL(/\/change-password/);
  await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
  // The rules come with the form, each marked as the password is typed
  const rules = page.getByTestId('password-rules');
  assert.match(await rules.innerText(), /At least 12 characters[\s\S]*A digit[\s\S]*An uppercase letter[\s\S]*One of !@#\$%\^&\*\(\)_\+/);
  await page.getByLabel('New password', { exact: true }).fill('short1');
  await rules.getByText('At least 12 characters (not met)').waitFor();
  await rules.getByText('A digit (met)').waitFor();
  await page.getByLabel('New password', { exact: true }).fill(ADMIN_PASSWORD);
  assert.not.match(await rules.innerText(), /not met/);
  await page.getByLabel('Confirm new password').fill('a-typo');
  await page.getByText('The passwords do not match.').waitFor();
  await page.getByLabel('Confirm new password').fill(ADMIN_PASSWORD);
  await screenshot(page, 'forced-password-change');
  await page.getByRole('button', { name: 'Set password and continue' }).click();

  // Then the page asked for at first opens, signed in with the new password
  await page.waitForURL(/\/settings\/secrets/);
  await page.getByRole('heading', { name: 'Settings' }).waitFor();
  assert.ok(await page.getByText('admin', { exact: true }).first().isVisible());
  assert.is(await page.getByRole('link', { name: 'Management' }).count(), 0, 'the default admin is not listed in SERVICE_ADMINS');

  // A server with no traces yet says where to send them, and where a key comes from
  await page.getByRole('link', { name: 'Projects', exact: true }).click();
  const guide = page.getByTestId('send-traces-guide');
  await guide.waitFor();
  assert.match(
    (await guide.getByTestId('send-traces-snippet').textContent()) ?? '',
    /projectName: "default",[\s\S]*apiKey: process\.env\.PHOENIX_API_KEY/,
  );
  await guide.getByTestId('send-traces-auth').getByRole('link', { name: 'Settings → API keys' }).waitFor();
  await screenshot(page, 'projects-empty-server');

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('an admin creates a user, a key shown once, and a secret kept masked until revealed', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  await signIn(page, server, ADMIN, ADMIN_PASSWORD);
  await screenshot(page, 'projects-signed-in');

  // Users: create a viewer
  await page.getByRole('link', { name: 'Settings', exact: true }).click();
  await page.getByRole('link', { name: 'Users' }).click();
  await page.getByRole('button', { name: 'Add user' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Email', { exact: true }).fill(VIEWER);
  await dialog.getByLabel('Username').fill('vera');
  await dialog.getByLabel('Role').selectOption('VIEWER');
  await dialog.getByLabel('Initial password').fill('Vera-initial-pw-1!');
  await dialog.getByRole('button', { name: 'Add user' }).click();
  const veraRow = page.locator(`[data-testid=user-row][data-email="${VIEWER}"]`);
  await veraRow.waitFor();
  // Roles change in place
  await veraRow.getByLabel('Role of vera').selectOption('MEMBER');
  await page.getByText('vera is now member').waitFor();
  await veraRow.getByLabel('Role of vera').selectOption('VIEWER');
  await page.getByText('vera is now viewer').waitFor();
  // A refused write shows the server's words: the same email twice
  await page.getByRole('button', { name: 'Add user' }).click();
  await dialog.getByLabel('Email', { exact: true }).fill(VIEWER);
  await dialog.getByLabel('Username').fill('vera2');
  await dialog.getByRole('button', { name: 'Add user' }).click();
  await dialog.getByRole('alert').waitFor();
  assert.match((await dialog.getByRole('alert').textContent()) ?? '', /email/i);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await screenshot(page, 'settings-users');
  // Deleting a user takes a confirmation
  await page.getByRole('button', { name: 'Add user' }).click();
  await dialog.getByLabel('Email', { exact: true }).fill('temp@example.com');
  await dialog.getByLabel('Username').fill('temp');
  await dialog.getByRole('button', { name: 'Add user' }).click();
  const tempRow = page.locator('[data-testid=user-row][data-email="temp@example.com"]');
  await tempRow.getByRole('button', { name: 'Delete temp' }).click();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await tempRow.waitFor({ state: 'detached' });

  // A settings tab that does not exist says so rather than showing another tab
  await page.goto(server.href('/settings/nope'));
  await page.getByRole('heading', { name: 'No settings tab “nope”' }).waitFor();
  assert.is(await page.locator('.tabs a[aria-current=page]').count(), 0);

  // API keys, also as /settings/keys: a system key's value is shown once
  await page.goto(server.href('/settings/keys'));
  await page.getByRole('button', { name: 'New system key' }).waitFor();
  assert.is(await page.locator('.tabs a[aria-current=page]').textContent(), 'API keys');
  await page.getByRole('button', { name: 'New system key' }).click();
  await dialog.getByLabel('Name').fill('collector');
  await dialog.getByRole('button', { name: 'Create key' }).click();
  const value = (await page.getByTestId('new-key-value').inputValue()).trim();
  assert.ok(value.length > 20, 'the new key is shown');
  // ...with how to use it: the environment Phoenix's clients read, and the header
  const usage = (await page.getByTestId('new-key-usage').textContent()) ?? '';
  assert.ok(usage.includes(`export PHOENIX_API_KEY=${value}`), usage);
  assert.ok(usage.includes(`export PHOENIX_COLLECTOR_ENDPOINT=${server.baseUrl}`), usage);
  assert.match(usage, /Authorization: Bearer/);
  await screenshot(page, 'settings-new-key');
  await dialog.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('cell', { name: 'collector', exact: true }).waitFor();
  assert.not.ok((await page.content()).includes(value), 'the key is nowhere on the page once the dialog is closed');
  // ...and it works as a bearer
  const viaKey = await fetch(server.href('/v1/projects'), { headers: { authorization: `Bearer ${value}` } });
  assert.is(viaKey.status, 200);
  await screenshot(page, 'settings-keys');
  // ...until it is deleted
  await page.getByRole('button', { name: 'Delete key collector' }).click();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('cell', { name: 'collector', exact: true }).waitFor({ state: 'detached' });
  assert.is((await fetch(server.href('/v1/projects'), { headers: { authorization: `Bearer ${value}` } })).status, 401);

  // Secrets: masked in the list, revealed on demand
  await page.getByRole('link', { name: 'Secrets' }).click();
  await page.getByRole('button', { name: 'Add secret' }).click();
  await dialog.getByLabel('Key').fill('OPENAI_API_KEY');
  await dialog.getByLabel('Value', { exact: true }).fill('sk-very-secret-value');
  await dialog.getByRole('button', { name: 'Save secret' }).click();
  const row = page.locator('[data-testid=secret-row][data-key=OPENAI_API_KEY]');
  await row.waitFor();
  assert.not.ok((await page.content()).includes('sk-very-secret-value'), 'the value is not in the page until revealed');
  assert.match((await row.getByTestId('secret-value').textContent()) ?? '', /•+/);
  await screenshot(page, 'settings-secrets');
  await row.getByRole('button', { name: 'Reveal OPENAI_API_KEY' }).click();
  await row.getByText('sk-very-secret-value').waitFor();
  // Search by key
  await page.getByLabel('Search secrets').fill('anthropic');
  await page.getByText('No matching secrets').waitFor();
  await page.getByLabel('Search secrets').fill('openai');
  await row.waitFor();
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a viewer sees no write controls and no settings', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  // Given a user an admin created: their first sign-in asks for their own password
  await signIn(page, server, VIEWER, 'Vera-initial-pw-1!', 'Vera-own-password-1!');
  await page.getByTestId('project-card').first().waitFor();
  assert.is(await page.getByRole('button', { name: 'New project' }).count(), 0);
  assert.is(await page.getByRole('button', { name: /^Edit / }).count(), 0);
  assert.is(await page.getByRole('button', { name: /^Delete / }).count(), 0);
  assert.is(await page.getByRole('link', { name: 'Settings' }).count(), 0);
  await screenshot(page, 'projects-viewer');

  await page.goto(server.href('/settings/users'));
  await page.getByRole('heading', { name: 'Settings are for admins' }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Add user' }).count(), 0);

  // Their own profile: a key of their own is theirs to create
  await page.goto(server.href('/profile'));
  await page.getByRole('heading', { name: 'Your API keys' }).waitFor();
  await page.getByRole('button', { name: 'New key' }).click();
  await page.getByRole('dialog').getByLabel('Name').fill('laptop');
  await page.getByRole('dialog').getByRole('button', { name: 'Create key' }).click();
  await page.getByTestId('new-key-value').waitFor();
  await page.getByRole('dialog').getByRole('button', { name: 'Done' }).click();
  await page.getByRole('cell', { name: 'laptop', exact: true }).waitFor();
  await screenshot(page, 'profile');
  // ...and so is their password, under the same rules: the page signs back in with the new one and stays
  assert.match(await page.getByTestId('password-rules').innerText(), /At least 12 characters/);
  await page.getByLabel('Current password').fill('Vera-own-password-1!');
  await page.getByLabel('New password', { exact: true }).fill('Vera-second-pw-2!');
  await page.getByLabel('Confirm new password').fill('Vera-second-pw-2!');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByText('Password changed').waitFor();
  await page.reload();
  await page.getByRole('heading', { name: 'Your API keys' }).waitFor();
  const relogin = await fetch(server.href('/auth/login'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: VIEWER, password: 'Vera-second-pw-2!' }),
  });
  assert.is(relogin.status, 204);
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('an expired access token is renewed without leaving the page; signing out ends the session', async ({ server, browser }) => {
  const { page, context } = await openPage(browser);
  const scripts = trackScripts(page);
  await signIn(page, server, ADMIN, ADMIN_PASSWORD);
  await page.getByTestId('project-card').first().waitFor();
  // Budget: a first visit (login, then the projects page) downloads ≤ 250 KB of JavaScript gzipped
  const js = await scripts();
  console.log(`first load of login + projects: ${js.files} script files, ${(js.wireBytes / 1024).toFixed(1)} KB on the wire`);
  assert.ok(js.wireBytes <= 250 * 1024, `first-load JavaScript is ${js.wireBytes} bytes`);
  // Given the access cookie is gone (as when it expires), only the refresh cookie is left
  await context.clearCookies({ name: 'loupe-access-token' });
  // When the page calls the API, it renews the session and carries on
  await page.getByRole('link', { name: 'Settings', exact: true }).click();
  await page.locator(`[data-testid=user-row][data-email="${VIEWER}"]`).waitFor();
  assert.match(page.url(), /\/settings/);
  const cookies = await context.cookies();
  assert.ok(
    cookies.some((c) => c.name === 'loupe-access-token'),
    'a new access cookie was set',
  );

  // Signing out lands on the login page, and the app asks to sign in again
  await page.getByTestId('logout').click();
  await page.waitForURL(/\/login/);
  await page.goto(server.href('/projects'));
  await page.waitForURL(/\/login\?returnTo=%2Fprojects/);
  await context.close();
});

test('a listed admin sets a password from the mailed link, signs in and finds the management link', async ({ server, browser, smtp }) => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(server.href('/login'));
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  // The sign-in page has an Email field too: fill the reset page's, not one about to be replaced.
  await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
  await page.getByLabel('Email').fill('olga@example.com');
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await page.getByText('we sent it a link').waitFor();
  await screenshot(page, 'forgot-password');

  // The mail's link opens the reset page
  let mail = await smtp.nth(1);
  for (let n = 2; !mail.to.includes('olga@example.com'); n++) mail = await smtp.nth(n);
  const link = hrefOf(htmlPart(mail.raw), 'reset-url');
  assert.match(link, /\/reset-password-with-token\?token=/);
  await page.goto(link);
  await page.getByLabel('New password', { exact: true }).fill('Olga-chosen-pw-7!');
  await page.getByLabel('Confirm new password').fill('Olga-chosen-pw-7!');
  await screenshot(page, 'reset-password');
  await page.getByRole('button', { name: 'Set new password' }).click();
  await page.getByText('Your password was changed').waitFor();
  await page.getByRole('link', { name: 'Sign in' }).click();

  await page.waitForURL(/\/login/);
  // A returnTo pointing elsewhere is ignored: signing in never sends anyone off the app
  await page.goto(server.href('/login?returnTo=//evil.example.com/phish'));
  await submitLogin(page, 'olga@example.com', 'Olga-chosen-pw-7!');
  await page.waitForURL(/\/projects/);
  assert.ok(page.url().startsWith(server.href('/projects')), page.url());
  const management = page.getByRole('link', { name: 'Management' });
  await management.waitFor();
  assert.is(await management.getAttribute('href'), MANAGEMENT_URL);
  assert.is(await management.getAttribute('target'), '_blank');
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test.run();
