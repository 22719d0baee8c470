import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage } from './support/browser.ts';
import { unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';

/** Settings › Models in a real browser: the built-in table, an admin's price added and deleted. */
type Ctx = { server: UiServer; browser: Browser };
const test = suite<Ctx>('model prices page', {} as Ctx);

test.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: false });
  ctx.browser = await launchBrowser();
});
test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

test('Settings › Models lists the built-in table, adds a price from a date and deletes it', async ({ server, browser }) => {
  const { page, problems } = await openPage(browser);
  await page.goto(server.href('/settings/models'));
  await page.getByLabel('Search built-in prices').fill('gpt-4o-mini');
  const mini = page.getByTestId('built-in-price-row').filter({ has: page.getByText('gpt-4o-mini', { exact: true }) });
  assert.equal((await mini.locator('td').allInnerTexts()).slice(0, 3), ['gpt-4o-mini', '$0.15', '$0.6']);

  await page.getByRole('button', { name: 'Add price' }).click();
  await page.locator('input[name="model"]').fill('house-model-7b');
  await page.locator('input[name="provider"]').fill('local');
  await page.locator('input[name="from"]').fill('2026-11-01');
  await page.locator('input[name="input"]').fill('0.2');
  await page.locator('input[name="output"]').fill('0.8');
  await page.getByRole('button', { name: 'Save price' }).click();
  const row = page.getByTestId('custom-price-row');
  await row.waitFor();
  const cells = await row.locator('td').allInnerTexts();
  assert.equal([cells[0], cells[1], cells[2], cells[4], cells[5]], ['house-model-7b', 'house-model-7b', 'local', '$0.2', '$0.8']);
  await screenshot(page, 'settings-models');

  const listed = (await (await fetch(server.href('/v1/model_prices?source=custom'))).json()) as { data: { effective_from: string }[] };
  assert.equal(
    listed.data.map((p) => p.effective_from),
    ['2026-11-01T00:00:00.000Z'],
  );

  await row.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await page.getByText('No prices of your own yet').waitFor();
  assert.equal(unexpectedProblems(problems), []);
});

test.run();
