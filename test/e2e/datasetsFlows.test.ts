import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { seed } from '../support/restClient.ts';
import { attrs, newTraceId, spanRecord } from '../support/spanFixtures.ts';
import { launchBrowser, openPage, screenshotLeftOpen } from './support/browser.ts';
import { unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';
import { api } from './support/api.ts';

/** The page's document, inside functions that run in the browser (the tests compile without the DOM library). */
declare const document: { querySelectorAll(selector: string): Iterable<{ readonly textContent: string | null }> };

/**
 * The dataset pages with authentication off: a person uploads a CSV through the column-mapping
 * step, reads its examples and versions, sees an experiment run on it, and sees the server's own
 * words when it refuses a file.
 */

type Ctx = { server: UiServer; browser: Browser };
const test = suite<Ctx>('dataset pages, auth off', {} as Ctx);

test.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: false });
  ctx.browser = await launchBrowser();
});

test.after.each(() => screenshotLeftOpen('datasets'));

test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

const CSV = [
  'question,context,answer,source',
  '"What is Loupe, in short?",docs,An LLM tracing server,faq',
  'Is <b>markup</b> rendered?,ui,"No, shown as text",review',
].join('\n');

const chooseFile = (page: Page, name: string, mimeType: string, text: string) =>
  page
    .getByRole('dialog')
    .getByLabel('File (CSV or JSONL)')
    .setInputFiles({ name, mimeType, buffer: Buffer.from(text) });

test('a person uploads a CSV with a column mapping and reads its examples, versions and experiments', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);

  // Given the empty datasets page, reached from the sidebar
  await page.goto(server.href('/projects'));
  await page.getByRole('link', { name: 'Datasets' }).click();
  await page.getByText('No datasets yet').waitFor();

  // When a CSV is chosen, its header's columns are offered for mapping
  await page.getByRole('button', { name: 'Upload' }).click();
  const dialog = page.getByRole('dialog');
  await chooseFile(page, 'support-qa.csv', 'text/csv', CSV);
  await dialog.getByTestId('column-row').first().waitFor();
  assert.equal(await dialog.getByTestId('column-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-column'))), [
    'question',
    'context',
    'answer',
    'source',
  ]);
  assert.is(await dialog.getByLabel(/^Dataset name/).inputValue(), 'support-qa', 'the name comes from the file');

  // And context is left out, source goes to metadata (answer is guessed as the output)
  assert.is(await dialog.getByLabel('answer as output').isChecked(), true);
  await dialog.getByLabel('context as skipped').check();
  await dialog.getByLabel('source as metadata').check();
  await dialog.getByLabel('Description').fill('Questions from the support inbox');
  await screenshot(page, 'datasets-upload-mapping');
  await dialog.getByRole('button', { name: 'Upload', exact: true }).click();

  // Then the dataset's page shows version 1 with both examples, mapped as chosen, markup as text
  await page.waitForURL(/\/datasets\/[^/]+$/);
  await page.getByRole('heading', { name: 'support-qa' }).waitFor();
  await page.getByTestId('example-row').nth(1).waitFor();
  assert.is(await page.getByTestId('example-row').count(), 2);
  const inputs = await page.getByTestId('example-input').allTextContents();
  assert.equal(JSON.parse(inputs[0]!), { question: 'What is Loupe, in short?' });
  assert.equal(JSON.parse(inputs[1]!), { question: 'Is <b>markup</b> rendered?' });
  assert.is(await page.getByTestId('examples-table').locator('b').count(), 0, 'example content is text, not HTML');
  assert.equal(JSON.parse((await page.getByTestId('example-output').nth(1).textContent()) ?? ''), { answer: 'No, shown as text' });
  assert.equal(JSON.parse((await page.getByTestId('example-metadata').first().textContent()) ?? ''), { source: 'faq' });
  assert.equal(await page.getByTestId('dataset-version-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-number'))), ['1']);
  await page.getByRole('link', { name: 'Experiments (0)' }).waitFor();

  // When examples are appended (a second version) and an experiment with one run is made from code
  const datasetId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);
  await api(server, '/v1/datasets/upload?sync=true', {
    action: 'append',
    name: 'support-qa',
    inputs: [{ question: 'Does it keep versions?' }],
    outputs: [{ answer: 'Yes' }],
  });
  const { data: examples } = await api(server, `/v1/datasets/${datasetId}/examples`);
  const { data: experiment } = await api(server, `/v1/datasets/${datasetId}/experiments`, { name: 'baseline', description: 'gpt-4o-mini' });
  const now = new Date().toISOString();
  await api(server, `/v1/experiments/${experiment.id}/runs`, {
    dataset_example_id: examples.examples[0].node_id,
    output: 'An LLM tracing server',
    repetition_number: 1,
    start_time: now,
    end_time: now,
  });

  // Then a reload (the path is the app's) shows both versions, newest first, with the new example
  await page.reload();
  // The versions load after the page: wait for the second before reading them
  await page.getByTestId('dataset-version-item').nth(1).waitFor();
  assert.equal(await page.getByTestId('dataset-version-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-number'))), [
    '2',
    '1',
  ]);
  await page.getByRole('heading', { name: 'Examples at version 2' }).waitFor();
  await page.getByTestId('example-row').nth(2).waitFor();
  await screenshot(page, 'datasets-dataset-page');
  // The version shown downloads in each format the REST exports give
  const downloaded = async (label: string): Promise<string> => {
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('dataset-downloads').getByRole('button', { name: label, exact: true }).click(),
    ]);
    return readFileSync((await file.path())!, 'utf8');
  };
  // While a download is on its way the page says so (a large set takes a while): the answer is held here
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/v1/datasets/*/csv*', async (route) => {
    const answer = await route.fetch();
    await held;
    await route.fulfill({ response: answer });
  });
  const [slowFile] = await Promise.all([
    page.waitForEvent('download'),
    (async () => {
      await page.getByTestId('dataset-downloads').getByRole('button', { name: 'CSV', exact: true }).click();
      assert.match(await page.getByTestId('download-progress').innerText(), /^Downloading CSV… 0 B$/);
      assert.ok(await page.getByTestId('dataset-downloads').getByRole('button', { name: 'JSONL', exact: true }).isDisabled());
      await screenshot(page, 'datasets-download-progress');
      release();
    })(),
  ]);
  assert.match(slowFile.suggestedFilename(), /\.csv$/);
  await page.unroute('**/v1/datasets/*/csv*');
  await page.getByTestId('download-progress').waitFor({ state: 'detached' });
  const csv = (await downloaded('CSV')).trim().split(/\r?\n/);
  assert.is(csv.length, 4, 'a header and the three examples of version 2');
  assert.match(csv[0]!, 'question');
  assert.is((await downloaded('JSONL')).trim().split('\n').length, 3);
  const tuning = (await downloaded('OpenAI fine-tune'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.is(tuning.length, 3);
  assert.ok(tuning.every((line) => Array.isArray(line.messages)));
  // ...and its Experiments tab lists the experiment with its run
  await page.getByRole('link', { name: 'Experiments (1)' }).click();
  await page.waitForURL(/tab=experiments/);
  await page.getByTestId('experiment-row').waitFor();
  assert.equal((await page.getByTestId('experiment-row').getAttribute('data-name')) ?? '', 'baseline');
  // 1 run recorded of the 3 the version's examples call for
  assert.is((await page.getByTestId('run-count').textContent())?.trim(), '1 / 3');
  assert.is((await page.getByTestId('experiment-row').getByText('Version 2').count()) > 0, true);
  await page.getByRole('link', { name: 'Examples', exact: true }).click();

  // And version 1 still holds its two examples
  await page.locator('[data-testid=dataset-version-item][data-number="1"]').click();
  await page.getByRole('heading', { name: 'Examples at version 1' }).waitFor();
  await page.getByTestId('example-row').nth(2).waitFor({ state: 'detached' });
  await page.getByTestId('example-row').nth(1).waitFor();
  assert.is(await page.getByTestId('example-row').count(), 2);

  // And the list shows the dataset with its example count
  await page.getByRole('link', { name: '← Datasets' }).click();
  const row = page.locator('[data-testid=dataset-row][data-name="support-qa"]');
  await row.waitFor();
  assert.is((await row.getByTestId('example-count').textContent())?.trim(), '3');
  assert.match((await row.textContent()) ?? '', /Questions from the support inbox/);
  await screenshot(page, 'datasets-list');
  // ...and a click on its row (the example count, not the name link) opens it again
  await row.getByTestId('example-count').click();
  await page.getByRole('heading', { name: 'Examples at version 2' }).waitFor();

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a refused upload shows the server’s words and leaves no dataset behind', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(server.href('/datasets'));
  await page.getByTestId('datasets-table').waitFor();
  await page.getByRole('button', { name: 'Upload' }).click();
  const dialog = page.getByRole('dialog');

  // When a CSV whose header names a column twice is uploaded
  await chooseFile(page, 'twice.csv', 'text/csv', 'question,answer,answer\nhi,a,b\n');
  await dialog.getByTestId('column-row').first().waitFor();
  assert.is(await dialog.getByTestId('column-row').count(), 2, 'a repeated column is offered once');
  await dialog.getByRole('button', { name: 'Upload', exact: true }).click();

  // Then the server's refusal names the column
  await dialog.getByRole('alert').waitFor();
  assert.match((await dialog.getByRole('alert').textContent()) ?? '', /names the column "answer" twice/);

  // When a JSONL file with a malformed third line is uploaded
  await chooseFile(page, 'broken.jsonl', '', '{"question":"a","answer":"b"}\n{"question":"c","answer":"d"}\n{"question": \n');
  await dialog.getByTestId('column-row').first().waitFor();
  assert.is(await dialog.getByRole('alert').count(), 0, 'choosing another file clears the error');
  await dialog.getByLabel(/^Dataset name/).fill('broken');
  await dialog.getByRole('button', { name: 'Upload', exact: true }).click();
  await dialog.getByRole('alert').waitFor();
  assert.match((await dialog.getByRole('alert').textContent()) ?? '', /line 3 is not valid JSON/);
  await screenshot(page, 'datasets-upload-refused');

  // And neither refused file left a dataset behind
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  const { data } = await api(server, '/v1/datasets');
  assert.equal(
    data.map((d: { name: string }) => d.name),
    ['support-qa'],
  );

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a person compares two experiments on the same examples, with score deltas against the baseline', async ({ server, browser }) => {
  // Given the dataset of the first test with experiments "baseline" (one run so far) and "candidate",
  // every example run by both, scored by a "correctness" evaluator (baseline 1, 0, 0; candidate 1, 1, 0)
  const { data: list } = await api(server, '/v1/datasets');
  const datasetId = list[0].id as string;
  const { data: examples } = await api(server, `/v1/datasets/${datasetId}/examples`);
  const { data: experiments } = await api(server, `/v1/datasets/${datasetId}/experiments`);
  const baseline = experiments.find((e: { name: string }) => e.name === 'baseline');
  const { data: candidate } = await api(server, `/v1/datasets/${datasetId}/experiments`, { name: 'candidate' });
  const now = new Date().toISOString();
  const later = new Date(Date.now() + 1200).toISOString();
  const run = async (experimentId: string, i: number, output: string, score: number, error?: string) => {
    const { data } = await api(server, `/v1/experiments/${experimentId}/runs`, {
      dataset_example_id: examples.examples[i].node_id,
      output,
      repetition_number: 1,
      start_time: now,
      end_time: later,
      ...(error ? { error } : {}),
    });
    await api(server, '/v1/experiment_evaluations', {
      experiment_run_id: data.id,
      name: 'correctness',
      annotator_kind: 'CODE',
      start_time: now,
      end_time: now,
      result: { score },
    });
  };
  const { data: baselineRuns } = await api(server, `/v1/experiments/${baseline.id}/runs`);
  await api(server, '/v1/experiment_evaluations', {
    experiment_run_id: baselineRuns[0].id,
    name: 'correctness',
    annotator_kind: 'CODE',
    start_time: now,
    end_time: now,
    result: { score: 1 },
  });
  await run(baseline.id, 1, 'Yes, as HTML', 0);
  await run(baseline.id, 2, 'No', 0);
  await run(candidate.id, 0, 'A tracing server for LLM apps', 1);
  await run(candidate.id, 1, 'No, as text', 1);
  await run(candidate.id, 2, '', 0, 'RateLimitError: 429 from the provider');

  const { page, context, problems } = await openPage(browser);
  await page.goto(server.href(`/datasets/${encodeURIComponent(datasetId)}?tab=experiments`));
  await page.getByTestId('experiment-row').nth(1).waitFor();

  // The Experiments tab shows each one's runs, errors, latency and a column per evaluator
  const row = (name: string) => page.locator(`[data-testid=experiment-row][data-name=${name}]`);
  const cell = (name: string, testId: string) => row(name).getByTestId(testId);
  // Each row's summary loads on its own; '…' marks one still loading.
  await page.waitForFunction(() => {
    const cells = [...document.querySelectorAll('[data-testid=experiment-row] td')];
    return cells.length > 0 && !cells.some((td) => td.textContent?.trim() === '…');
  });
  assert.is((await cell('candidate', 'evaluator').textContent())?.trim(), '0.67');
  assert.is((await cell('baseline', 'evaluator').textContent())?.trim(), '0.33');
  assert.is((await cell('candidate', 'run-count').textContent())?.trim(), '3');
  assert.is((await cell('candidate', 'error-count').textContent())?.trim(), '1');
  assert.is((await cell('baseline', 'error-count').textContent())?.trim(), '0');
  assert.match((await cell('candidate', 'mean-latency').textContent()) ?? '', /1\.20s/);
  await screenshot(page, 'datasets-experiments-tab');
  // ...sortable by an evaluator's mean, best first, then worst first
  const order = () => page.getByTestId('experiment-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')));
  await page.getByRole('button', { name: 'correctness' }).click();
  assert.equal(await order(), ['candidate', 'baseline']);
  await page.getByRole('button', { name: /correctness/ }).click();
  assert.equal(await order(), ['baseline', 'candidate']);

  // When baseline then candidate are ticked and compared
  await page.getByLabel('Compare baseline').check();
  await page.getByLabel('Compare candidate').check();
  await page.getByRole('button', { name: 'Compare selected (2)' }).click();

  // Then the summary shows each mean score, the candidate's with its gain over the baseline
  await page.waitForURL(/\/compare\?experiments=/);
  await page.getByTestId('compare-row').nth(2).waitFor();
  assert.equal(await page.getByTestId('compare-experiment').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name'))), [
    'baseline',
    'candidate',
  ]);
  assert.match((await page.getByTestId('compare-experiment').nth(0).textContent()) ?? '', /0\.33/);
  assert.match((await page.getByTestId('compare-experiment').nth(1).textContent()) ?? '', /0\.67/);
  assert.is((await page.getByTestId('mean-delta').textContent())?.trim(), '+0.33');

  // And each example shows both outputs side by side, the candidate's score delta and its error
  const second = page.getByTestId('compare-row').nth(1);
  assert.equal(
    (await second.getByTestId('run-output').allTextContents()).map((t) => t.trim()),
    ['Yes, as HTML', 'No, as text'],
  );
  assert.is((await second.getByTestId('score-delta').textContent())?.trim(), '+1.00');
  const third = page.getByTestId('compare-row').nth(2);
  assert.match((await third.getByTestId('run-error').textContent()) ?? '', /RateLimitError: 429/);
  assert.is((await third.getByTestId('score-delta').textContent())?.trim(), '±0');
  await screenshot(page, 'datasets-compare');

  // And the comparison survives a reload (its experiments are in the URL)
  await page.reload();
  await page.getByTestId('compare-row').nth(2).waitFor();

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a person adds three spans of a project to the dataset as a new version linked to its spans', async ({ server, browser }) => {
  // Given a project with four LLM spans, each with an input and an output
  const questions = ['How do I reset my key?', 'Where are traces kept?', 'Can I export a dataset?', 'Is there an API?'];
  const spans = questions.map((question, i) =>
    spanRecord({
      traceId: newTraceId(),
      name: `answer-${i + 1}`,
      spanKind: 'LLM',
      attributes: attrs({
        'openinference.span.kind': 'LLM',
        'input.value': JSON.stringify({ question }),
        'input.mime_type': 'application/json',
        'output.value': `Answer ${i + 1}`,
      }),
    }),
  );
  await seed(server, 'support-bot', spans);
  const { data: list } = await api(server, '/v1/datasets');
  const datasetId = list[0].id as string;

  const { page, context, problems } = await openPage(browser);
  await page.goto(server.href(`/datasets/${encodeURIComponent(datasetId)}`));
  await page.getByRole('heading', { name: 'Examples at version 2' }).waitFor();

  // When three of the project's spans are ticked and added
  await page.getByRole('button', { name: 'Add from spans' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Project').selectOption('support-bot');
  await dialog.getByTestId('span-option').nth(3).waitFor();
  for (const span of spans.slice(0, 3)) await dialog.locator(`[data-testid=span-option][data-span-id="${span.spanId}"] input`).check();
  await screenshot(page, 'datasets-add-from-spans');
  await dialog.getByRole('button', { name: 'Add 3 spans' }).click();

  // Then a third version holds the six examples, the new ones with the spans' input and output
  await page.getByRole('heading', { name: 'Examples at version 3' }).waitFor();
  await page.getByTestId('example-row').nth(5).waitFor();
  const inputs = (await page.getByTestId('example-input').allTextContents()).map((t) => JSON.parse(t));
  for (const question of questions.slice(0, 3))
    assert.ok(
      inputs.some((i) => i.question === question),
      question,
    );
  assert.not.ok(inputs.some((i) => i.question === questions[3]));

  // And each new example links to its source span
  const { data } = await api(server, `/v1/datasets/${datasetId}/examples`);
  const linked = data.examples
    .filter((e: { source: unknown }) => e.source !== null)
    .map((e: { source: { span_id: string } }) => e.source.span_id);
  assert.equal(
    linked.sort(),
    spans
      .slice(0, 3)
      .map((s) => s.spanId)
      .sort(),
  );

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test.run();
