import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Locator } from 'playwright-core';
import { launchBrowser, openPage } from './support/browser.ts';
import { unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';
import { exportSpans, hugeTrace } from './tracingFixtures.ts';

// Functions passed to page.evaluate/waitForFunction run in the browser; the project's types have no DOM.
declare const document: any;
declare const window: any;

/** What a person reads in an element (trimmed). */
const text = async (locator: Locator): Promise<string> => ((await locator.textContent()) ?? '').trim();
/**
 * A trace of 10,000 spans (sent as one OTLP/JSON export) opens, and its tree stays usable: only
 * the rows in view are in the DOM, it scrolls to the last span, selects, collapses and expands.
 */

type Ctx = { server: UiServer; browser: Browser; traceId: string; projectId: string };
const test = suite<Ctx>('tracing: a 10,000-span trace', {} as Ctx);
const SPANS = 10_000;

test.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: false });
  ctx.browser = await launchBrowser();
  const { traceId, spans } = hugeTrace(Date.now() - 5 * 60_000, SPANS);
  const started = Date.now();
  await exportSpans(ctx.server, 'batch-jobs', spans);
  console.log(`ingested ${spans.length} spans over OTLP/JSON in ${Date.now() - started} ms`);
  ctx.traceId = traceId;
  const response = await fetch(ctx.server.href('/graphql'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ getProjectByName(name: "batch-jobs") { id } }' }),
  });
  ctx.projectId = ((await response.json()) as { data: { getProjectByName: { id: string } } }).data.getProjectByName.id;
});

test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

test('the trace opens with all its spans, renders only the rows in view, and stays interactive', async ({
  server,
  browser,
  traceId,
  projectId,
}) => {
  const { page, problems } = await openPage(browser);
  // Warm the browser's cache of the app's scripts, as a person who came from the traces list has
  await page.goto(server.href(`/projects/${projectId}/traces`));
  await page.getByTestId('traces-table').waitFor();

  // When the trace is opened
  const started = Date.now();
  await page.goto(server.href(`/projects/${projectId}/traces/${traceId}`));
  await page.locator('[role="treeitem"]').first().waitFor();
  const firstRowsMs = Date.now() - started;
  await page.getByText(`${SPANS.toLocaleString('en-US')} spans`, { exact: true }).waitFor({ timeout: 60_000 });
  const allSpansMs = Date.now() - started;
  await page.getByTestId('span-name').waitFor();
  console.log(`10,000-span trace: first rows after ${firstRowsMs} ms, every span loaded after ${allSpansMs} ms`);
  // Then the whole tree is there, but only the rows in view are in the DOM
  assert.is(await text(page.getByTestId('trace-span-count')), '10,000');
  const rendered = await page.locator('[role="treeitem"]').count();
  assert.ok(rendered > 10 && rendered < 200, `${rendered} rows in the DOM`);
  assert.ok(allSpansMs < 20_000, `all spans in ${allSpansMs} ms`);
  await screenshot(page, 'tracing-huge-trace');

  // When the tree is scrolled to its end, the last span is rendered and can be selected
  const tree = page.getByTestId('span-tree');
  await tree.evaluate((el) => {
    const scroller = el.querySelector('.list') as any;
    scroller.scrollTop = scroller.scrollHeight;
  });
  const last = page.locator('[role="treeitem"]', { hasText: /step_99_\d+/ }).last();
  await last.waitFor();
  const clickedAt = Date.now();
  await last.click();
  await page
    .getByTestId('span-name')
    .getByText(/step_99_\d+/)
    .waitFor();
  console.log(`selecting a span at the end of the tree: details after ${Date.now() - clickedAt} ms`);
  assert.match(page.url(), /\?span=[0-9a-f]{16}$/);

  // And the keyboard moves the selection
  const before = await text(page.getByTestId('span-name'));
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction((name) => document.querySelector('[data-testid="span-name"]')?.textContent !== name, before);

  // When everything is collapsed, one row remains; expanded again, the list is as long as the trace
  await page.getByRole('button', { name: 'Collapse all' }).click();
  await page.waitForFunction(() => document.querySelectorAll('[role="treeitem"]').length === 1);
  await page.getByRole('button', { name: 'Expand all' }).click();
  const height = await tree.evaluate((el) => (el.querySelector('.list') as any).scrollHeight);
  assert.ok(height >= 30 * 9_000, `scroll height ${height}px for 10,000 rows of 30px`);
  assert.equal(unexpectedProblems(problems), []);
  await page.context().close();
});

test.run();
