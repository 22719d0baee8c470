import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage } from './support/browser.ts';
import { unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';
import { api } from './support/api.ts';
import { chatTurn, exportSpans } from './tracingFixtures.ts';

/** A project's Metrics tab in a real browser, on a day of traces sent over OTLP/JSON: the charts, and zooming by dragging. */
type Ctx = { server: UiServer; browser: Browser };
const test = suite<Ctx>('metrics page', {} as Ctx);

test.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: false });
  ctx.browser = await launchBrowser();
  const now = Date.now();
  // A turn every 20 minutes over the last day; every 7th fails; the unknown model has no price.
  const turns = Array.from({ length: 72 }, (_, i) => chatTurn({ startMs: now - (i + 1) * 20 * 60_000, index: i, error: i % 7 === 0 }));
  for (const [i, turn] of turns.entries()) if (i % 9 === 0) turn[2]!.attributes!['llm.model_name'] = 'house-model-7b';
  await exportSpans(ctx.server, 'metrics-bot', turns.flat());
  // Two scores per turn's root span, the second one rising over the day: the scores chart's series.
  const scores = turns.flatMap((turn, i) => [
    { span_id: turn[0]!.spanId, name: 'relevance', annotator_kind: 'LLM', result: { score: i % 2 === 0 ? 1 : 0 } },
    { span_id: turn[0]!.spanId, name: 'correctness', annotator_kind: 'HUMAN', result: { score: 1 - i / turns.length } },
  ]);
  await api(ctx.server, '/v1/span_annotations?sync=true', { data: scores });
});

test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

test('the Metrics tab draws a day of traces, errors, latency, tokens, cost and annotation scores; dragging across a chart zooms the range in the URL', async ({
  server,
  browser,
}) => {
  const { page, problems } = await openPage(browser, { viewport: { width: 1360, height: 1100 } });
  await page.goto(server.href('/projects'));
  await page.getByRole('link', { name: 'metrics-bot' }).first().click();
  await page.getByRole('link', { name: 'Metrics' }).click();
  await page.getByRole('combobox', { name: 'Time range' }).selectOption('24h');
  await page.getByTestId('chart-traces').locator('canvas').waitFor();
  for (const chart of ['chart-traces', 'chart-errors', 'chart-latency', 'chart-tokens', 'chart-cost', 'chart-scores']) {
    assert.ok(await page.getByTestId(chart).locator('canvas').isVisible(), `${chart} is drawn`);
  }
  assert.match(await page.getByTestId('metrics-range').innerText(), 'per hour');
  // One series per annotation name, in the chart's legend.
  const legend = await page.getByTestId('chart-scores').innerText();
  assert.match(legend, 'correctness');
  assert.match(legend, 'relevance');
  assert.match(await page.getByTestId('unpriced-models').innerText(), 'house-model-7b');
  assert.match(page.url(), /range=24h/);
  // No axis repeats a tick label; money in dollars; time on the 24-hour clock of the tables.
  for (const chart of ['chart-traces', 'chart-errors', 'chart-latency', 'chart-tokens', 'chart-cost', 'chart-scores']) {
    const ticks = (await page.getByTestId(chart).getAttribute('data-y-ticks'))!.split(' | ');
    assert.ok(ticks.length >= 2 && new Set(ticks).size === ticks.length, `${chart}: ${ticks.join(', ')}`);
  }
  assert.ok((await page.getByTestId('chart-cost').getAttribute('data-y-ticks'))!.split(' | ').every((t) => /^\$\d/.test(t)));
  const times = (await page.getByTestId('chart-traces').getAttribute('data-x-ticks'))!;
  assert.match(times, /\b([01]\d|2[0-3]):[0-5]\d\b/);
  assert.not.match(times, /am|pm/i);
  await screenshot(page, 'metrics-day');

  // Drag across the middle of the traces chart: the range becomes that stretch.
  const plot = page.getByTestId('chart-traces').locator('.u-over');
  const box = (await plot.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  await page.waitForURL(/range=custom/);
  const url = new URL(page.url());
  const start = Date.parse(url.searchParams.get('start')!);
  const end = Date.parse(url.searchParams.get('end')!);
  const hours = (end - start) / 3_600_000;
  assert.ok(hours > 1.5 && hours < 3.5, `a tenth of the day is zoomed to (${hours} h)`);
  await page.waitForFunction(() =>
    (globalThis as any).document.querySelector('[data-testid="metrics-range"]')?.textContent.includes('per minute'),
  );
  await page.getByTestId('chart-traces').locator('canvas').waitFor();
  // Every chart stays, the scores' too (drawn, or saying the stretch has none)
  for (const chart of ['chart-traces', 'chart-errors', 'chart-latency', 'chart-tokens', 'chart-cost', 'chart-scores']) {
    assert.ok(await page.getByTestId(chart).locator('canvas').isVisible(), `${chart} is drawn after the zoom`);
  }
  await screenshot(page, 'metrics-zoomed');

  // Back is the day again.
  await page.goBack();
  await page.waitForFunction(() =>
    (globalThis as any).document.querySelector('[data-testid="metrics-range"]')?.textContent.includes('per hour'),
  );

  // A range where nothing happened says so on every chart instead of drawing blank axes.
  await page.goto(server.href(`${new URL(page.url()).pathname}?range=custom&start=2020-01-01T00:00:00.000Z&end=2020-01-02T00:00:00.000Z`));
  await page.getByTestId('chart-cost').getByTestId('chart-empty').waitFor();
  for (const chart of ['chart-traces', 'chart-errors', 'chart-latency', 'chart-tokens', 'chart-cost', 'chart-scores']) {
    assert.is(await page.getByTestId(chart).getByTestId('chart-empty').innerText(), 'No data in this range', chart);
  }
  await screenshot(page, 'metrics-empty');
  assert.equal(unexpectedProblems(problems), []);
});

test("the Alerts tab: a rule made in the form fires on the last hour's errors; its page draws the metric with the threshold and lists the transition", async ({
  server,
  browser,
}) => {
  const { page, problems } = await openPage(browser, { viewport: { width: 1360, height: 1100 } });
  await page.goto(server.href('/projects'));
  await page.getByRole('link', { name: 'metrics-bot' }).first().click();
  await page.getByRole('link', { name: 'Alerts' }).click();
  await page.getByTestId('new-alert').click();
  const form = page.getByTestId('alert-form');
  await form.locator('input[name="alert-name"]').fill('Errors in the last hour');
  await form.locator('input[name="alert-threshold"]').fill('0.1');
  await form.locator('input[name="alert-window"]').fill('3600');
  await form.locator('input[name="alert-interval"]').fill('5');
  await form.getByRole('button', { name: 'Create' }).click();
  await page.getByTestId('alert-row').first().waitFor();
  // The last hour holds three turns, one failed (every 7th): a third > 10 %. The evaluator runs every second.
  const projectPath = new URL(page.url()).pathname;
  const rules = async () => (await api(server, `/v1${projectPath}`)).data as { id: string; state: string }[];
  for (const deadline = Date.now() + 30_000; (await rules())[0]?.state !== 'FIRING'; ) {
    assert.ok(Date.now() < deadline, 'the rule fired');
    await new Promise((r) => setTimeout(r, 200));
  }
  await page.reload();
  assert.is(await page.getByTestId('alert-state').first().innerText(), 'FIRING');
  assert.match(await page.getByTestId('alert-last-value').first().innerText(), /%/);
  // A click on the rule's row (its state, not the name link) opens its page
  await page.getByTestId('alert-row').first().getByTestId('alert-state').click();
  await page.getByTestId('alert-chart').locator('canvas').waitFor();
  assert.match(await page.getByTestId('alert-chart').innerText(), 'threshold');
  // The error rate's axis reads in percent, as the rule's last value does
  assert.ok((await page.getByTestId('alert-chart').getAttribute('data-y-ticks'))!.split(' | ').every((t) => /^\d+(\.\d+)?%$/.test(t)));
  assert.match(await page.getByTestId('alert-transitions').innerText(), /→ FIRING/);
  await screenshot(page, 'alert-rule');
  assert.equal(unexpectedProblems(problems), []);
});

test('costs show where tokens do: the project card, the Traces table and a trace, which names a model without a price', async ({
  server,
  browser,
}) => {
  const { page, problems } = await openPage(browser);
  await page.goto(server.href('/projects'));
  const card = page.getByTestId('project-cost').first();
  assert.match(await card.innerText(), /^\$\d/);
  await page.getByRole('link', { name: 'metrics-bot' }).first().click();
  await page.getByTestId('trace-row').first().waitFor();
  const costs = await page.getByTestId('trace-cost').allInnerTexts();
  // In dollars, three significant digits, like every other cost on every page.
  assert.ok(
    costs.filter((c) => c !== '–').every((c) => /^\$0\.0*[1-9]\d{2}$/.test(c)),
    costs.join(' '),
  );
  assert.ok(costs.includes('–'), 'a trace of the unpriced model shows no cost');
  // The newest trace (index 0) is priced; the first of the unpriced model is index 0 of the i % 9 turns.
  await page
    .getByTestId('trace-row')
    .filter({ has: page.getByTestId('trace-cost').getByText('–', { exact: true }) })
    .first()
    .click();
  await page.getByTestId('trace-unpriced').waitFor();
  assert.match(await page.getByTestId('trace-unpriced').innerText(), 'house-model-7b');
  await screenshot(page, 'trace-unpriced');
  assert.equal(unexpectedProblems(problems), []);
});

test.run();
