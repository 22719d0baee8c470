import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { seed } from '../support/restClient.ts';
import { attrs, nanos, newTraceId, spanRecord } from '../support/spanFixtures.ts';
import { launchBrowser, openPage } from './support/browser.ts';
import { unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';
import { api } from './support/api.ts';

/**
 * Costs in a real browser: the Traces, Spans and Sessions tables sorted by cost (the ones without
 * a cost last, both ways), and experiments' costs in a dataset's Experiments tab and on the
 * comparison page.
 */
type Ctx = { server: UiServer; browser: Browser; traces: { id: string; usd: number | null }[] };
const test = suite<Ctx>('costs: sorting and experiments', {} as Ctx);

const MINI = { input: 1.5e-7, output: 6e-7 };
const SONNET = { input: 3e-6, output: 1.5e-5 };

const llm = (traceId: string, minute: number, model: string, prompt: number, completion: number) =>
  spanRecord({
    traceId,
    name: `call ${model}`,
    spanKind: 'LLM',
    startTimeUnixNano: nanos(new Date(Date.now() - (30 - minute) * 60_000).toISOString()),
    endTimeUnixNano: nanos(new Date(Date.now() - (30 - minute) * 60_000 + 1500).toISOString()),
    attributes: attrs({
      'openinference.span.kind': 'LLM',
      'llm.model_name': model,
      'llm.token_count.prompt': prompt,
      'llm.token_count.completion': completion,
      'session.id': `chat-${minute}`,
      'user.id': minute % 2 === 0 ? 'ana' : 'ben',
      'input.value': `question ${minute}`,
      'output.value': `answer ${minute}`,
    }),
  });

test.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: false });
  ctx.browser = await launchBrowser();
  // Five traces (one LLM span each, a session each): three priced, one of a model without a price.
  const calls: [string, number, number][] = [
    ['gpt-4o-mini', 1200, 300],
    ['claude-sonnet-4-5', 2500, 800],
    ['house-model-7b', 100, 100],
    ['gpt-4o-mini', 90, 10],
    ['claude-sonnet-4-5', 400, 50],
  ];
  const spans = calls.map(([model, prompt, completion], i) => llm(newTraceId(), i, model, prompt, completion));
  await seed(ctx.server, 'spend', spans);
  ctx.traces = calls.map(([model, prompt, completion], i) => {
    const price = model === 'gpt-4o-mini' ? MINI : model === 'claude-sonnet-4-5' ? SONNET : null;
    return { id: spans[i]!.traceId, usd: price && prompt * price.input + completion * price.output };
  });
});
test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

/** The costs in a table's rows, top to bottom, once `first` is the top one. */
const costsShown = async (page: Page, testId: string, first: string): Promise<string[]> => {
  await page.waitForFunction(
    ([id, text]) => (globalThis as any).document.querySelector(`[data-testid=${id}]`)?.textContent.trim() === text,
    [testId, first] as const,
  );
  return page.getByTestId(testId).evaluateAll((cells) => cells.map((c) => c.textContent.trim()));
};

/** The one way every page writes USD: three significant digits below a dollar, cents above. */
const usdText = (n: number) => (n < 1 ? `$${n.toPrecision(3)}` : `$${n.toFixed(2)}`);

test('the Traces, Spans and Sessions tables sort by cost, most expensive first or cheapest first, the unpriced model last', async ({
  server,
  browser,
  traces,
}) => {
  const { page, problems } = await openPage(browser, { viewport: { width: 1440, height: 900 } });
  await page.goto(server.href('/projects'));
  await page.getByRole('link', { name: 'spend' }).first().click();
  await page.getByTestId('traces-table').waitFor();
  const desc = traces
    .filter((t) => t.usd !== null)
    .map((t) => t.usd!)
    .sort((a, b) => b - a)
    .map(usdText);

  await page.getByRole('button', { name: /^Cost/ }).click();
  await page.waitForURL(/sort=costTotal/);
  const byCost = await costsShown(page, 'trace-cost', desc[0]!);
  assert.equal(byCost, [...desc, '–'], 'most expensive first, the trace of a model without a price last');
  // The exact value on hover, to the last digit the price gives.
  const top = Math.max(...traces.map((t) => t.usd ?? 0));
  const exact = await page.getByTestId('trace-cost').first().getAttribute('title');
  assert.ok(Math.abs(Number(exact!.replace(/[$,]/g, '')) - top) < 1e-12, `${exact} is ${top}`);
  await screenshot(page, 'costs-traces-by-cost');

  await page.getByRole('button', { name: /^Cost/ }).click();
  await page.waitForURL(/dir=asc/);
  assert.equal(
    await costsShown(page, 'trace-cost', desc.at(-1)!),
    [...desc].reverse().concat('–'),
    'cheapest first, still the unpriced one last',
  );

  await page.getByRole('link', { name: 'Spans' }).click();
  await page.getByTestId('spans-table').waitFor();
  await page.getByRole('button', { name: /^Cost/ }).click();
  await page.waitForURL(/sort=costTotal/);
  assert.equal(await costsShown(page, 'span-cost', desc[0]!), byCost, 'spans: the same order (one LLM span a trace)');

  await page.getByRole('link', { name: 'Sessions' }).click();
  await page.getByTestId('sessions-table').waitFor();
  await page.getByRole('combobox', { name: 'Session order' }).selectOption('cost-desc');
  await page.waitForURL(/sort=cost/);
  await page.waitForFunction(
    (top) => (globalThis as any).document.querySelector('[data-testid=session-cost]')?.textContent.trim() === top,
    desc[0]!,
  );
  const sessions = await page.getByTestId('session-cost').allInnerTexts();
  // Each session names its user (turn i is chat-i, ana's when i is even)
  assert.equal((await page.getByTestId('session-user').allInnerTexts()).sort(), ['ana', 'ana', 'ana', 'ben', 'ben']);
  assert.equal(sessions.at(-1), '–', 'the session without a cost last');
  assert.equal(sessions.length, 5);
  await screenshot(page, 'costs-sessions-by-cost');
  // The most expensive session (turn 1, a Sonnet call) is ben's, and its page says so
  await page.getByTestId('session-row').first().click();
  await page.getByTestId('session-page-user').waitFor();
  assert.is(await page.getByTestId('session-page-user').innerText(), 'ben');
  await screenshot(page, 'session-of-a-user');
  assert.equal(unexpectedProblems(problems), []);
});

test('the Users tab lists each user (user.id) with traces, sessions, tokens and cost; a user opens the Traces tab filtered to them', async ({
  server,
  browser,
  traces,
}) => {
  const { page, problems } = await openPage(browser, { viewport: { width: 1440, height: 900 } });
  await page.goto(server.href('/projects'));
  await page.getByRole('link', { name: 'spend' }).first().click();
  await page.getByRole('link', { name: 'Users' }).click();
  await page.getByTestId('users-table').waitFor();
  const row = (user: string) => page.locator(`[data-testid=user-row][data-user=${user}]`);
  // ana sent turns 0, 2, 4 (one of them the unpriced model), ben turns 1 and 3.
  const cost = (minutes: number[]) => minutes.reduce((n, m) => n + (traces[m]!.usd ?? 0), 0);
  assert.is(await row('ana').getByTestId('user-traces').innerText(), '3');
  assert.is(await row('ana').getByTestId('user-sessions').innerText(), '3');
  assert.is(await row('ana').getByTestId('user-tokens').innerText(), '2,150');
  assert.is(await row('ana').getByTestId('user-cost').innerText(), usdText(cost([0, 2, 4])));
  assert.is(await row('ben').getByTestId('user-traces').innerText(), '2');
  assert.is(await row('ben').getByTestId('user-cost').innerText(), usdText(cost([1, 3])));
  await screenshot(page, 'users-tab');
  // A click on the user's row (its cost, not the name link) opens their traces
  await row('ben').getByTestId('user-cost').click();
  await page.waitForURL(/attr=user\.id/);
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[data-testid=trace-row]').length === 2);
  // The Traces tab's user column names them; a user there filters the tab to them too.
  assert.equal(await page.getByTestId('trace-user').allInnerTexts(), ['ben', 'ben']);
  await screenshot(page, 'traces-of-a-user');

  // Columns hidden and resized stay so after a reload
  await page.getByTestId('column-chooser').locator('summary').click();
  await page.getByTestId('column-chooser').getByLabel('Input').uncheck();
  await page.getByTestId('column-chooser').locator('summary').click();
  const output = page.locator('th[data-column=output] .resizer');
  const box = (await output.boundingBox())!;
  await page.mouse.move(box.x + box.width - 2, box.y + box.height - 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width + 118, box.y + box.height - 2, { steps: 6 });
  await page.mouse.up();
  await page.waitForFunction(() => JSON.parse((globalThis as any).localStorage.getItem('loupe.table.traces') ?? '{}').widths?.output > 100);
  await page.reload();
  await page.getByTestId('trace-row').first().waitFor();
  assert.is(await page.locator('th[data-column=input]').count(), 0, 'Input stays hidden');
  const width = (await page.locator('th[data-column=output] .resizer').boundingBox())!.width;
  assert.ok(Math.abs(width - (box.width + 120)) < 12, `Output keeps its width: ${width} vs ${box.width + 120}`);
  await screenshot(page, 'traces-columns');
  await page.getByTestId('column-chooser').locator('summary').click();
  await page.getByTestId('column-chooser').getByLabel('Input').check();

  // The Spans tab filtered to ana downloads exactly her spans, as CSV and as JSONL.
  await page.goto(
    server.href(
      `${new URL(page.url()).pathname.replace(/\/traces$/, '/spans').replace(/^\/loupe/, '')}?attr=${encodeURIComponent('user.id=ana')}`,
    ),
  );
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[data-testid=span-row]').length === 3);
  const shown = (await page.getByTestId('span-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-span-id')))).sort();
  const downloaded = async (format: string): Promise<string> => {
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export-spans').getByRole('button', { name: format }).click(),
    ]);
    return readFileSync((await file.path())!, 'utf8');
  };
  const csv = parse(await downloaded('CSV'), { columns: true }) as Record<string, string>[];
  assert.equal(csv.map((r) => r.span_id).sort(), shown);
  assert.ok(csv.every((r) => r.user_id === 'ana' && r.input!.startsWith('question ')));
  const jsonl = (await downloaded('JSONL'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(jsonl.map((s) => s.context.span_id).sort(), shown);
  await screenshot(page, 'spans-export');
  assert.equal(await unexpectedProblems(problems), []);
});

test('an experiment’s cost (its runs’ traces) is in the Experiments tab, sortable, and on the comparison page against the baseline', async ({
  server,
  browser,
  traces,
}) => {
  const { data: up } = await api(server, '/v1/datasets/upload?sync=true', { name: 'support-qa', inputs: [{ q: 'a' }, { q: 'b' }] });
  const { data: examples } = await api(server, `/v1/datasets/${up.dataset_id}/examples`);
  const experiment = async (name: string, runs: { id: string; usd: number | null }[]) => {
    const { data: x } = await api(server, `/v1/datasets/${up.dataset_id}/experiments`, { name });
    for (const [i, trace] of runs.entries())
      await api(server, `/v1/experiments/${x.id}/runs`, {
        dataset_example_id: examples.examples[i].node_id,
        output: `out ${i}`,
        repetition_number: 1,
        trace_id: trace.id,
        start_time: new Date().toISOString(),
        end_time: new Date().toISOString(),
      });
    return runs.reduce((n, r) => n + (r.usd ?? 0), 0);
  };
  const cheap = await experiment('mini-baseline', [traces[0]!, traces[3]!]);
  const dear = await experiment('sonnet-candidate', [traces[1]!, traces[4]!]);
  const { data: unrun } = await api(server, `/v1/datasets/${up.dataset_id}/experiments`, { name: 'never-run' });

  const { page, problems } = await openPage(browser, { viewport: { width: 1440, height: 900 } });
  const runReads: string[] = [];
  page.on('request', (request) => {
    if (/\/v1\/experiments\/[^/]+\/json/.test(request.url())) runReads.push(decodeURIComponent(request.url()));
  });
  await page.goto(server.href(`/datasets/${encodeURIComponent(up.dataset_id)}?tab=experiments`));
  await page.getByTestId('experiment-row').nth(1).waitFor();
  const costOf = (name: string) =>
    page.locator(`[data-testid=experiment-row][data-name=${name}] [data-testid=experiment-cost]`).innerText();
  assert.is(await costOf('mini-baseline'), usdText(cheap));
  assert.is(await costOf('sonnet-candidate'), usdText(dear));
  // An experiment without runs says it never ran, and its runs are not asked for (they would be a 404).
  const neverRan = page.locator('[data-testid=experiment-row][data-name=never-run] [data-testid=run-count]');
  assert.is((await neverRan.innerText()).trim(), 'never ran');
  assert.is(runReads.length, 2, runReads.join(' '));
  assert.not.ok(runReads.some((url) => url.includes(unrun.id)));
  await page.getByRole('button', { name: /^Cost/ }).click();
  const order = () => page.getByTestId('experiment-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')));
  assert.equal(await order(), ['sonnet-candidate', 'mini-baseline', 'never-run'], 'most expensive first, the one without a cost last');
  await screenshot(page, 'costs-experiments-tab');

  await page.getByLabel('Compare mini-baseline').check();
  await page.getByLabel('Compare sonnet-candidate').check();
  await page.getByRole('button', { name: /^Compare selected/ }).click();
  await page.getByTestId('compare-summary').waitFor();
  const costs = await page.getByTestId('compare-cost').allInnerTexts();
  const change = Math.round(((dear - cheap) / cheap) * 100);
  assert.equal(
    costs.map((c) => c.replace(/\s+/g, ' ').trim()),
    [usdText(cheap), `${usdText(dear)}+${change}%`],
  );
  await screenshot(page, 'costs-compare');
  assert.equal(unexpectedProblems(problems), []);
});

test.run();
