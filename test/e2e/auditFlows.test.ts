import type { Browser } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { launchBrowser, openPage, screenshotLeftOpen } from './support/browser.ts';
import { signIn, unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';
import { chatTurn, exportSpans } from './tracingFixtures.ts';

/**
 * Settings › Audit in a real browser: an admin creates a user, changes their role and deletes an
 * API key, then finds all three on the Audit tab with themselves as the actor, filters by type and
 * by actor, and opens a resource's link; a member gets no Audit page and a 403 from the API.
 */

type Ctx = { server: UiServer; browser: Browser };
const test = suite<Ctx>('UI, Settings › Audit', {} as Ctx);

const ADMIN_PASSWORD = 'Audit-admin-pw-42!';
const MEMBER = { email: 'mia@example.com', username: 'mia', password: 'Mia-initial-pw-7!' };

test.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: true });
  ctx.browser = await launchBrowser();
});

test.after.each(() => screenshotLeftOpen('audit'));

test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

test('an admin creates a user, changes a role, deletes a key, and sees all three with the actor on the Audit tab', async ({
  server,
  browser,
}) => {
  const { page, context, problems } = await openPage(browser);
  await signIn(page, server, 'admin@localhost', 'admin', ADMIN_PASSWORD);

  // A user, whose role then changes
  await page.goto(server.href('/settings/users'));
  await page.getByRole('button', { name: 'Add user' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Email', { exact: true }).fill(MEMBER.email);
  await dialog.getByLabel('Username').fill(MEMBER.username);
  await dialog.getByLabel('Role').selectOption('VIEWER');
  await dialog.getByLabel('Initial password').fill(MEMBER.password);
  await dialog.getByRole('button', { name: 'Add user' }).click();
  const row = page.locator(`[data-testid=user-row][data-email="${MEMBER.email}"]`);
  await row.waitFor();
  await row.getByLabel('Role of mia').selectOption('MEMBER');
  await page.getByText('mia is now member').waitFor();

  // A system key, created and deleted
  await page.goto(server.href('/settings/api-keys'));
  await page.getByRole('button', { name: 'New system key' }).click();
  await dialog.getByLabel('Name').fill('deploy bot');
  await dialog.getByRole('button', { name: 'Create key' }).click();
  const value = (await page.getByTestId('new-key-value').inputValue()).trim();
  await dialog.getByRole('button', { name: 'Done' }).click();
  // An export in the afternoon: its hour reads on the one 24-hour clock ("14:00 – 15:00", not "03:00 PM").
  const afternoon = new Date();
  afternoon.setHours(14, 20, 0, 0);
  if (afternoon.getTime() > Date.now()) afternoon.setDate(afternoon.getDate() - 1);
  await exportSpans(server, 'audit-bot', chatTurn({ startMs: afternoon.getTime(), index: 0 }), { authorization: `Bearer ${value}` });
  await page.getByRole('button', { name: 'Delete key deploy bot' }).click();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('cell', { name: 'deploy bot', exact: true }).waitFor({ state: 'detached' });

  // The Audit tab lists all three, newest first, each with the admin as the actor
  await page.getByRole('link', { name: 'Audit' }).click();
  await page.waitForURL(/\/settings\/audit/);
  const table = page.getByTestId('audit-table');
  await table.waitFor();
  const entry = (type: string, summary: string) => table.locator(`[data-testid=audit-row][data-type=${type}]`).filter({ hasText: summary });
  const created = entry('UserCreated', 'User "mia" created as VIEWER (LOCAL)');
  const role = entry('RoleChanged', 'Role VIEWER → MEMBER');
  const deleted = entry('ApiKeyRevoked', 'System API key "deploy bot" deleted');
  for (const found of [created, role, deleted]) {
    await found.waitFor();
    assert.is((await found.getByTestId('audit-actor').textContent())?.trim(), 'admin');
  }
  assert.match((await role.textContent()) ?? '', /role\s*VIEWER\s*→\s*MEMBER/);
  const ingested = table.locator('[data-testid=audit-row]').filter({ hasText: 'audit-bot' }).first();
  await ingested.waitFor();
  assert.not.match((await table.textContent()) ?? '', /\b(AM|PM)\b/);
  const order = await table.locator('[data-testid=audit-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-type')));
  assert.ok(
    order.indexOf('ApiKeyRevoked') < order.indexOf('RoleChanged') && order.indexOf('RoleChanged') < order.indexOf('UserCreated'),
    `newest first: ${order.join(', ')}`,
  );
  assert.not.ok((await page.content()).includes(value), 'the key is not on the page');
  assert.not.ok((await page.content()).includes(MEMBER.password), 'the password is not on the page');
  await screenshot(page, 'settings-audit');

  // Filters: one type; then one actor (a click on the actor's name)
  await page.getByLabel('Filter by event type').fill('RoleChanged');
  await table.locator('[data-testid=audit-row]:not([data-type=RoleChanged])').first().waitFor({ state: 'detached' });
  await role.waitFor();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await created.waitFor();
  await role.getByTestId('audit-actor').click();
  assert.match(await page.getByLabel('Filter by actor').inputValue(), /^user:/);
  await table.getByTestId('audit-actor').filter({ hasNotText: 'admin' }).first().waitFor({ state: 'detached' });
  await deleted.waitFor();
  const actors = await table.getByTestId('audit-actor').allTextContents();
  assert.ok(actors.length > 0 && actors.every((a) => a.trim() === 'admin'), actors.join(', '));
  await screenshot(page, 'settings-audit-filtered');

  // The user's entry links to the users page
  await created.getByTestId('audit-resource').click();
  await page.waitForURL(/\/settings\/users/);
  await page.locator(`[data-testid=user-row][data-email="${MEMBER.email}"]`).waitFor();

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a member gets no Audit page, and the API answers 403', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  // A user an admin created chooses their own password first.
  await signIn(page, server, MEMBER.email, MEMBER.password, 'Mia-own-password-8!');
  await page.goto(server.href('/settings/audit'));
  await page.getByRole('heading', { name: 'Settings are for admins' }).waitFor();
  assert.is(await page.getByTestId('audit-section').count(), 0);
  const reply = await context.request.get(server.href('/v1/audit/events'));
  assert.is(reply.status(), 403);
  assert.is((await reply.json()).code, 'admin_required');
  await screenshot(page, 'settings-audit-member');
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test.run();
