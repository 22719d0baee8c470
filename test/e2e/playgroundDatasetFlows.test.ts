import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { type OpenAi, startOpenAi } from '../peers/openAi.ts';
import { launchBrowser, openPage, screenshotLeftOpen } from './support/browser.ts';
import { unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';

/**
 * The playground over a dataset, authentication off, against a local OpenAI-compatible server
 * with the key in the server's environment: a person picks a dataset, maps a template variable
 * to an input key, runs the prompt over every example, watches the results come in (a refusal
 * among them), and opens the experiment that recorded them.
 */

type Ctx = { server: UiServer; browser: Browser; provider: OpenAi };
const test = suite<Ctx>('playground over a dataset, auth off', {} as Ctx);

test.before(async (ctx) => {
  ctx.provider = await startOpenAi();
  ctx.server = await startUiServer({ auth: false, env: { OPENAI_API_KEY: 'sk-e2e-dataset-91c2' } });
  ctx.browser = await launchBrowser();
  const upload = await fetch(ctx.server.href('/v1/datasets/upload?sync=true'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      action: 'create',
      name: 'capitals',
      inputs: [{ city: { name: 'Paris' } }, { city: { name: '[429] Rome' } }, { city: { name: '<b>Oslo</b>' } }],
    }),
  });
  assert.is(upload.status, 200, await upload.clone().text());
});

test.after.each(() => screenshotLeftOpen('playground-dataset'));

test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
  await ctx.provider?.close();
});

test('a person runs a prompt over a dataset version and opens the experiment', async ({ server, browser, provider }) => {
  const { page, context, problems } = await openPage(browser, { viewport: { width: 1440, height: 1100 } });
  await page.goto(server.href('/playground'));
  await page.getByRole('heading', { name: 'Playground' }).waitFor();

  // Given the prompt, a model on the local server and the dataset with its variable mapped to a nested input key
  await page.getByLabel('Content of message 2').fill('Capital facts about {{place}}');
  await page.getByLabel(/^Base URL/).fill(provider.baseUrl);
  await page.getByLabel('Model').fill('echo');
  await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'capitals' });
  await page.getByTestId('dataset-example-count').filter({ hasText: '3 examples' }).waitFor();
  assert.is(await page.getByLabel('Source of place').inputValue(), '', 'no input key is called place');
  await page.getByLabel('Source of place').selectOption('city.name');
  await screenshot(page, 'playground-dataset-mapping');

  // When it runs over the dataset
  await page.getByRole('button', { name: 'Run on dataset' }).click();

  // Then every example gets its row: answers, and the provider's refusal as that example's error
  const progress = page.getByTestId('dataset-progress');
  await progress.filter({ hasText: '3 / 3' }).waitFor();
  await page.getByTestId('experiment-link').waitFor();
  // The last run is streamed before the server has seen it into the read models; "running…" goes at `done`.
  await progress.filter({ hasText: 'running' }).waitFor({ state: 'detached' });
  assert.match((await progress.textContent()) ?? '', /1 failed/);
  const cells = page.getByTestId('dataset-result-cell');
  assert.is(await cells.count(), 3);
  assert.match((await cells.nth(0).textContent()) ?? '', /Echo: Capital facts about Paris/);
  assert.match((await cells.nth(0).textContent()) ?? '', /15 tokens/);
  assert.match((await cells.nth(1).textContent()) ?? '', /429/);
  // Markup in an example and in the answer stays text
  assert.match((await cells.nth(2).textContent()) ?? '', /Echo: Capital facts about <b>Oslo<\/b>/);
  assert.is(await page.getByTestId('dataset-results').locator('b').count(), 0);
  await screenshot(page, 'playground-dataset-results');

  // And the experiment that recorded the runs opens from the link
  await page.getByTestId('experiment-link').click();
  await page.waitForURL(/\/datasets\/[^/]+\/experiments\/[^/]+$/);
  await page.getByText('Echo: Capital facts about Paris').first().waitFor();
  await screenshot(page, 'playground-dataset-experiment');

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('two variants run over the dataset side by side, each its own experiment', async ({ server, browser, provider }) => {
  const { page, context, problems } = await openPage(browser, { viewport: { width: 1440, height: 1100 } });
  await page.goto(server.href('/playground'));
  await page.getByLabel('Content of message 2').fill('About {{city}}');
  await page.getByLabel(/^Base URL/).fill(provider.baseUrl);
  await page.getByLabel('Model').fill('echo');
  await page.getByRole('button', { name: 'Add variant' }).click();
  const b = page.getByRole('region', { name: 'Variant B' });
  await b.getByLabel('Content of message 2').fill('Tell me about {{city}}');
  await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'capitals' });
  await page.getByTestId('dataset-example-count').waitFor();
  // The input key named like the variable is taken by default (the whole object, as JSON)
  assert.is(await page.getByLabel('Source of city').inputValue(), 'city');
  await page.getByRole('button', { name: 'Run all on dataset' }).click();
  const progress = page.getByTestId('dataset-progress');
  await progress.nth(0).filter({ hasText: '3 / 3' }).waitFor();
  await progress.nth(1).filter({ hasText: '3 / 3' }).waitFor();
  await progress.filter({ hasText: 'running' }).first().waitFor({ state: 'detached' });
  assert.is(await page.getByTestId('experiment-link').count(), 2);
  const firstRow = page.getByTestId('dataset-result-row').first().getByTestId('dataset-result-cell');
  assert.match((await firstRow.nth(0).textContent()) ?? '', /Echo: About \{"name":"Paris"\}/);
  assert.match((await firstRow.nth(1).textContent()) ?? '', /Echo: Tell me about \{"name":"Paris"\}/);
  await screenshot(page, 'playground-dataset-variants');
  const datasets = (await (await fetch(server.href('/v1/datasets'))).json()) as { data: { id: string; name: string }[] };
  const id = datasets.data.find((d: { name: string }) => d.name === 'capitals')!.id;
  const list = (await (await fetch(server.href(`/v1/datasets/${id}/experiments`))).json()) as { data: unknown[] };
  assert.is(list.data.length, 3, 'one experiment per variant (and the earlier one)');
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test.run();
