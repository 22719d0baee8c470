import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { createUser } from '../support/authClient.ts';
import { launchBrowser, openPage, screenshotLeftOpen } from './support/browser.ts';
import { signIn, unexpectedProblems } from './support/flows.ts';
import { SCREENSHOT_DIR, screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';
import { exportSpans, hexId, type OtlpSpan } from './tracingFixtures.ts';
import { api } from './support/api.ts';

// Page-side code (evaluated in the browser) names the DOM, which the server's program has no types for.
declare const document: any;

/**
 * Issue 12's "done when", in the browser: a person uploads a CSV, ticks three traces in the
 * project's traces table and adds them to that dataset (a new version, each example linked to its
 * span), ticks spans on the Spans tab into a new dataset, and compares two experiments. Viewers
 * get no boxes to tick.
 */

type Ctx = { server: UiServer; browser: Browser; spans: OtlpSpan[]; datasetId: string };
const test = suite<Ctx>('adding spans to a dataset from the traces table, auth off', {} as Ctx);

const QUESTIONS = [
  'How do I rotate a key?',
  'Where are traces kept?',
  'Can I export a dataset?',
  'Is there an <img src=x onerror=alert(1)> API?',
];

/** One single-span trace per question, a minute apart (newest last), each an LLM call with an input and an output. */
const answers = (): OtlpSpan[] =>
  QUESTIONS.map((question, i) => ({
    traceId: hexId(16),
    spanId: hexId(8),
    name: `answer-${i + 1}`,
    kind: 'LLM',
    startMs: Date.now() - (10 - i) * 60_000,
    durationMs: 300 + i * 10,
    status: 'OK',
    attributes: {
      'input.value': JSON.stringify({ question }),
      'input.mime_type': 'application/json',
      'output.value': `Answer ${i + 1}`,
    },
  }));

test.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: false });
  ctx.browser = await launchBrowser();
  ctx.spans = answers();
  await exportSpans(ctx.server, 'support-bot', ctx.spans);
});

test.after.each(() => screenshotLeftOpen('add-spans'));

test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

const CSV = ['question,answer', 'What is Loupe?,An LLM tracing server', 'Does it keep versions?,Yes'].join('\n');

/** Waits until the table shows `n` rows and is not loading. */
const waitForRows = (page: Page, testId: string, n: number) =>
  page.waitForFunction(
    ([id, expected]) =>
      document.querySelectorAll(`[data-testid="${id}"]`).length === expected && !document.querySelector('.table-card.loading'),
    [testId, n] as const,
  );

test('a person uploads a CSV, adds three traces from the traces table to it, and finds them as a new version linked to their spans', async (ctx) => {
  const { server, browser, spans } = ctx;
  const { page, context, problems } = await openPage(browser);

  // Given a dataset uploaded from a CSV through the upload dialog
  await page.goto(server.href('/datasets'));
  await page.getByRole('button', { name: 'Upload' }).click();
  const upload = page.getByRole('dialog');
  await upload.getByLabel('File (CSV or JSONL)').setInputFiles({ name: 'faq.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
  await upload.getByTestId('column-row').first().waitFor();
  await upload.getByRole('button', { name: 'Upload', exact: true }).click();
  await page.waitForURL(/\/datasets\/[^/]+$/);
  await page.getByRole('heading', { name: 'faq' }).waitFor();
  await page.getByTestId('example-row').nth(1).waitFor();
  ctx.datasetId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);

  // When the project's traces table is opened from the projects page
  await page.goto(server.href('/projects'));
  await page.getByRole('link', { name: 'support-bot' }).click();
  await page.getByTestId('traces-table').waitFor();
  await waitForRows(page, 'trace-row', 4);
  const addButton = page.getByRole('button', { name: 'Add to dataset' });
  assert.is(await addButton.isDisabled(), true, 'nothing ticked, nothing to add');

  // And three of its four traces are ticked (ticking does not open the trace)
  const chosen = spans.slice(0, 3);
  for (const span of chosen) await page.locator(`[data-testid=trace-row][data-trace-id="${span.traceId}"] input[type=checkbox]`).check();
  assert.not.match(page.url(), /\/traces\/[0-9a-f]{32}/, 'still on the traces table');
  assert.is((await page.getByTestId('selected-count').textContent())?.trim(), '3 traces selected');
  const selectAll = page.getByLabel('Select all traces on this page');
  assert.is(
    await selectAll.evaluate((box) => (box as { indeterminate: boolean }).indeterminate),
    true,
    'the header box shows part of the page ticked',
  );
  await screenshot(page, 'add-spans-traces-ticked');

  // And added to the uploaded dataset
  await addButton.click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('heading', { name: 'Add 3 traces to a dataset' }).waitFor();
  await dialog.locator('[data-testid=dataset-choice][data-name="faq"]').waitFor();
  assert.is(await dialog.getByRole('radio', { name: /^faq/ }).isChecked(), true, 'the newest dataset is chosen first');
  await screenshot(page, 'add-spans-dialog');
  await dialog.getByRole('button', { name: 'Add to dataset' }).click();

  // Then a toast links to the dataset and the ticks are cleared
  const toast = page.getByRole('status').filter({ hasText: '3 examples added to faq' });
  await toast.waitFor();
  // The harness's screenshot() leaves toasts out: this one is the toast itself.
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'add-spans-toast.png') });
  await page.getByTestId('selected-count').waitFor({ state: 'detached' });
  assert.is(await page.locator('[data-testid=trace-row] input[type=checkbox]:checked').count(), 0);

  // When the toast's link is followed
  await toast.getByRole('link', { name: 'Open dataset' }).click();

  // Then the dataset's second version holds the two uploaded examples and the three spans' inputs and outputs
  await page.waitForURL(new RegExp(`/datasets/${encodeURIComponent(ctx.datasetId)}$`));
  await page.getByRole('heading', { name: 'Examples at version 2' }).waitFor();
  await page.getByTestId('example-row').nth(4).waitFor();
  assert.is(await page.getByTestId('example-row').count(), 5);
  assert.equal(await page.getByTestId('dataset-version-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-number'))), [
    '2',
    '1',
  ]);
  const inputs = (await page.getByTestId('example-input').allTextContents()).map((t) => JSON.parse(t));
  const outputs = (await page.getByTestId('example-output').allTextContents()).map((t) => JSON.parse(t));
  chosen.forEach((_, i) => {
    assert.ok(
      inputs.some((input) => input.question === QUESTIONS[i]),
      QUESTIONS[i],
    );
    assert.ok(outputs.some((output) => output.output === `Answer ${i + 1}`));
  });
  assert.not.ok(
    inputs.some((input) => input.question === QUESTIONS[3]),
    'the unticked trace was not added',
  );
  await screenshot(page, 'add-spans-dataset-version');

  // And each new example is linked to its source span, with the span's name and kind as metadata
  const { data } = await api(server, `/v1/datasets/${encodeURIComponent(ctx.datasetId)}/examples`);
  const fromSpans = data.examples.filter((e: { source: unknown }) => e.source !== null);
  assert.equal(fromSpans.map((e: { source: { span_id: string } }) => e.source.span_id).sort(), chosen.map((s) => s.spanId).sort());
  for (const example of fromSpans) {
    const span = chosen.find((s) => s.spanId === example.source.span_id)!;
    assert.equal(example.metadata, { span_name: span.name, span_kind: 'LLM' });
    assert.ok(example.source.span_node_id, 'the span is resolved to its node');
  }
  // And the page links each such example to its source span: following one opens that span's trace
  const sourceLinks = page.getByTestId('examples-table').getByTestId('example-source');
  assert.is(await sourceLinks.count(), chosen.length, 'one source link per example made from a span');
  await sourceLinks.first().click();
  await page.waitForURL(/\/projects\/[^/]+\/traces\/[0-9a-f]{32}/);
  const landedOn = new URL(page.url()).pathname.split('/').at(-1);
  assert.ok(
    chosen.some((s) => s.traceId === landedOn),
    `the link led to the trace of a chosen span (${landedOn})`,
  );
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a person ticks every span on the Spans tab and adds them to a new dataset named in the dialog', async ({
  server,
  browser,
  spans,
}) => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(server.href('/projects'));
  await page.getByRole('link', { name: 'support-bot' }).click();
  await page.getByRole('link', { name: 'Spans', exact: true }).click();
  await page.getByTestId('spans-table').waitFor();
  await waitForRows(page, 'span-row', 4);

  // When the header box ticks the page, then one span is unticked
  await page.getByLabel('Select all spans on this page').check();
  assert.is((await page.getByTestId('selected-count').textContent())?.trim(), '4 spans selected');
  await page.locator(`[data-testid=span-row][data-span-id="${spans[0]!.spanId}"] input[type=checkbox]`).uncheck();
  assert.is((await page.getByTestId('selected-count').textContent())?.trim(), '3 spans selected');

  // And "New dataset" is chosen, first with a name already taken
  await page.getByRole('button', { name: 'Add to dataset' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('radio', { name: 'New dataset' }).check();
  await dialog.getByLabel('New dataset name').fill('faq');
  await dialog.getByText('A dataset named “faq” exists').waitFor();
  assert.is(await dialog.getByRole('button', { name: 'Create dataset and add' }).isDisabled(), true);
  await dialog.getByLabel('New dataset name').fill('hard-questions');
  await screenshot(page, 'add-spans-new-dataset');
  await dialog.getByRole('button', { name: 'Create dataset and add' }).click();

  // Then the new dataset holds the three spans, one version, the markup in an input shown as text
  const toast = page.getByRole('status').filter({ hasText: '3 examples added to hard-questions' });
  await toast.getByRole('link', { name: 'Open dataset' }).click();
  await page.getByRole('heading', { name: 'hard-questions' }).waitFor();
  await page.getByRole('heading', { name: 'Examples at version 1' }).waitFor();
  await page.getByTestId('example-row').nth(2).waitFor();
  assert.is(await page.getByTestId('example-row').count(), 3);
  const inputs = (await page.getByTestId('example-input').allTextContents()).map((t) => JSON.parse(t).question);
  assert.equal([...inputs].sort(), [...QUESTIONS.slice(1)].sort());
  assert.is(await page.getByTestId('examples-table').locator('img').count(), 0, 'span content is text, not HTML');

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a person compares two experiments run on the dataset, score deltas against the first', async ({ server, browser, datasetId }) => {
  // Given experiments "baseline" and "candidate" on the dataset's latest version, every example run by
  // both and scored by "correctness" (baseline 1 on the first example only, candidate 1 on the first two)
  const { data } = await api(server, `/v1/datasets/${encodeURIComponent(datasetId)}/examples`);
  const examples = data.examples as { node_id: string; input: { question: string } }[];
  const now = new Date().toISOString();
  const later = new Date(Date.now() + 900).toISOString();
  const experiment = async (name: string, scores: readonly number[]) => {
    const { data: made } = await api(server, `/v1/datasets/${encodeURIComponent(datasetId)}/experiments`, { name });
    for (const [i, example] of examples.entries()) {
      const { data: run } = await api(server, `/v1/experiments/${made.id}/runs`, {
        dataset_example_id: example.node_id,
        output: `${name} on ${example.input.question}`,
        repetition_number: 1,
        start_time: now,
        end_time: later,
      });
      await api(server, '/v1/experiment_evaluations', {
        experiment_run_id: run.id,
        name: 'correctness',
        annotator_kind: 'CODE',
        start_time: now,
        end_time: now,
        result: { score: scores[i] ?? 0 },
      });
    }
  };
  await experiment('baseline', [1]);
  await experiment('candidate', [1, 1]);

  // When both are ticked on the dataset's page and compared
  const { page, context, problems } = await openPage(browser);
  await page.goto(server.href(`/datasets/${encodeURIComponent(datasetId)}?tab=experiments`));
  await page.getByTestId('experiment-row').nth(1).waitFor();
  await page.getByLabel('Compare baseline').check();
  await page.getByLabel('Compare candidate').check();
  await page.getByRole('button', { name: 'Compare selected (2)' }).click();

  // Then each experiment's mean shows, the candidate's gain over the baseline, and every example side by side
  await page.waitForURL(/\/compare\?experiments=/);
  await page
    .getByTestId('compare-row')
    .nth(examples.length - 1)
    .waitFor();
  assert.is(await page.getByTestId('compare-row').count(), examples.length);
  assert.equal(await page.getByTestId('compare-experiment').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name'))), [
    'baseline',
    'candidate',
  ]);
  assert.match((await page.getByTestId('compare-experiment').nth(0).textContent()) ?? '', /0\.20/);
  assert.match((await page.getByTestId('compare-experiment').nth(1).textContent()) ?? '', /0\.40/);
  assert.is((await page.getByTestId('mean-delta').textContent())?.trim(), '+0.20');
  const second = page.getByTestId('compare-row').nth(1);
  assert.equal(
    (await second.getByTestId('run-output').allTextContents()).map((t) => t.trim()),
    [`baseline on ${examples[1]!.input.question}`, `candidate on ${examples[1]!.input.question}`],
  );
  assert.is((await second.getByTestId('score-delta').textContent())?.trim(), '+1.00');
  await screenshot(page, 'add-spans-compare');

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test.run();

type RolesCtx = { server: UiServer; browser: Browser };
const roles = suite<RolesCtx>('adding spans to a dataset, auth on', {} as RolesCtx);

roles.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: true });
  ctx.browser = await launchBrowser();
  const admin = { bearer: ctx.server.adminSecret! };
  await createUser(ctx.server, admin, { email: 'vic@example.com', username: 'vic', role: 'VIEWER', password: 'vic-initial-pw-1' });
  await createUser(ctx.server, admin, { email: 'mia@example.com', username: 'mia', role: 'MEMBER', password: 'mia-initial-pw-1' });
  await exportSpans(ctx.server, 'guarded', answers(), { authorization: `Bearer ${ctx.server.adminSecret}` });
});

roles.after.each(() => screenshotLeftOpen('add-spans-roles'));

roles.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

roles('a viewer gets no boxes to tick and no "Add to dataset"; a member does', async ({ server, browser }) => {
  const viewer = await openPage(browser);
  await signIn(viewer.page, server, 'vic@example.com', 'vic-initial-pw-1', 'vic-own-password-1');
  await viewer.page.getByRole('link', { name: 'guarded' }).click();
  await waitForRows(viewer.page, 'trace-row', 4);
  assert.is(await viewer.page.locator('[data-testid=traces-table] input[type=checkbox]').count(), 0);
  assert.is(await viewer.page.getByRole('button', { name: 'Add to dataset' }).count(), 0);
  await viewer.page.getByRole('link', { name: 'Spans', exact: true }).click();
  await waitForRows(viewer.page, 'span-row', 4);
  assert.is(await viewer.page.locator('[data-testid=spans-table] input[type=checkbox]').count(), 0);
  assert.is(await viewer.page.getByRole('button', { name: 'Add to dataset' }).count(), 0);
  await screenshot(viewer.page, 'add-spans-viewer');
  assert.equal(unexpectedProblems(viewer.problems), []);
  await viewer.context.close();

  const member = await openPage(browser);
  await signIn(member.page, server, 'mia@example.com', 'mia-initial-pw-1', 'mia-own-password-1');
  await member.page.getByRole('link', { name: 'guarded' }).click();
  await waitForRows(member.page, 'trace-row', 4);
  assert.is(await member.page.locator('[data-testid=traces-table] input[type=checkbox]').count(), 5, 'a box per row and one for the page');
  // And a member's add goes through with their session (a new dataset of the one ticked trace)
  await member.page.locator('[data-testid=trace-row] input[type=checkbox]').first().check();
  await member.page.getByRole('button', { name: 'Add to dataset' }).click();
  const dialog = member.page.getByRole('dialog');
  await dialog.getByLabel('New dataset name').fill('from-mia');
  await dialog.getByRole('button', { name: 'Create dataset and add' }).click();
  await member.page.getByRole('status').filter({ hasText: '1 example added to from-mia' }).waitFor();
  assert.equal(unexpectedProblems(member.problems), []);
  await member.context.close();
});

roles.run();
