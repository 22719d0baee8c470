import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { seed } from '../support/restClient.ts';
import { attrs, spanRecord } from '../support/spanFixtures.ts';
import { launchBrowser, openPage, screenshotLeftOpen } from './support/browser.ts';
import { unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';
import { api } from './support/api.ts';

/**
 * A dataset changed in the browser: examples edited and deleted (each change a new version, and
 * each version shows what it changed), splits made, filled, renamed and deleted, labels chosen;
 * and one experiment's page with its runs per example and repetition.
 */

type Ctx = { server: UiServer; browser: Browser };
const test = suite<Ctx>('dataset editing pages, auth off', {} as Ctx);

test.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: false });
  ctx.browser = await launchBrowser();
});

test.after.each(() => screenshotLeftOpen('datasets-edit'));

test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

const upload = async (server: UiServer, name: string, splits: (string | null)[]) => {
  const { data } = await api(server, '/v1/datasets/upload?sync=true', {
    name,
    inputs: [{ question: 'What is Loupe?' }, { question: 'Is <b>markup</b> shown?' }, { question: 'Where are traces kept?' }],
    outputs: [{ answer: 'A tracing server' }, { answer: 'As text' }, { answer: 'In Postgres' }],
    splits,
  });
  const { data: examples } = await api(server, `/v1/datasets/${data.dataset_id}/examples`);
  return { datasetId: data.dataset_id as string, nodeIds: examples.examples.map((e: { node_id: string }) => e.node_id) as string[] };
};

const rows = (page: Page) => page.getByTestId('example-row');
const outputs = async (page: Page) => (await page.getByTestId('example-output').allTextContents()).map((t) => JSON.parse(t));
const versionItem = (page: Page, n: number) => page.locator(`[data-testid=dataset-version-item][data-number="${n}"]`);

test('a person edits an example and deletes another, each a new version that shows what it changed', async ({ server, browser }) => {
  const { datasetId, nodeIds } = await upload(server, 'editable', ['train', 'train', 'test']);
  const { page, context, problems } = await openPage(browser);
  await page.goto(server.href(`/datasets/${encodeURIComponent(datasetId)}`));
  await page.getByRole('heading', { name: 'Examples at version 1' }).waitFor();
  await rows(page).nth(2).waitFor();

  // When the first example's output is edited with a note
  await page
    .locator(`[data-testid=example-row][data-node-id="${nodeIds[0]}"]`)
    .getByRole('button', { name: /^Edit example/ })
    .click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Output (JSON)').fill('{"answer": "An LLM tracing server"}');
  await dialog.getByLabel('Change note').fill('Sharper answer');
  await screenshot(page, 'datasets-edit-example');
  await dialog.getByRole('button', { name: 'Save as new version' }).click();

  // Then version 2 is shown with the edited output, and it says it edited one example
  await page.getByRole('heading', { name: 'Examples at version 2' }).waitFor();
  await dialog.waitFor({ state: 'detached' });
  await rows(page).nth(2).waitFor();
  assert.equal((await outputs(page))[0], { answer: 'An LLM tracing server' });
  assert.match((await versionItem(page, 2).getByTestId('version-changes').textContent()) ?? '', /~1 edited/);
  assert.match((await versionItem(page, 1).getByTestId('version-changes').textContent()) ?? '', /\+3 added/);

  // When a bad edit is tried, the page says why and nothing changes
  await rows(page)
    .first()
    .getByRole('button', { name: /^Edit example/ })
    .click();
  await dialog.getByLabel('Input (JSON)').fill('["not", "an object"]');
  await dialog.getByRole('button', { name: 'Save as new version' }).click();
  assert.match((await dialog.getByRole('alert').textContent()) ?? '', /input: must be a JSON object/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // When the third example is deleted
  await page
    .locator(`[data-testid=example-row][data-node-id="${nodeIds[2]}"]`)
    .getByRole('button', { name: /^Delete example/ })
    .click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();

  // Then version 3 holds two examples and says it deleted one
  await page.getByRole('heading', { name: 'Examples at version 3' }).waitFor();
  await rows(page).nth(1).waitFor();
  await rows(page).nth(2).waitFor({ state: 'detached' });
  assert.match((await versionItem(page, 3).getByTestId('version-changes').textContent()) ?? '', /−1 deleted/);

  // And version 2's "what changed" shows the edit, before and after
  await versionItem(page, 2).click();
  await page.getByRole('button', { name: 'What changed' }).click();
  await page.getByRole('heading', { name: 'What changed at version 2' }).waitFor();
  const change = page.getByTestId('version-change');
  await change.first().waitFor();
  assert.is(await change.count(), 1);
  assert.is(await change.getAttribute('data-kind'), 'patched');
  assert.equal(await change.getByTestId('change-diff').evaluateAll((els) => els.map((e) => e.getAttribute('data-part'))), ['output']);
  assert.equal(JSON.parse((await change.getByTestId('change-before').textContent()) ?? ''), { answer: 'A tracing server' });
  assert.equal(JSON.parse((await change.getByTestId('change-after').textContent()) ?? ''), { answer: 'An LLM tracing server' });
  assert.match((await page.getByTestId('version-change-summary').textContent()) ?? '', /0 added · 1 edited · 0 deleted/);
  await screenshot(page, 'datasets-version-changes');

  // And version 3's shows the deleted example; version 1's the three added, markup as text
  await versionItem(page, 3).click();
  await page.getByRole('heading', { name: 'What changed at version 3' }).waitFor();
  await page.locator('[data-testid=version-change][data-kind=deleted]').waitFor();
  await versionItem(page, 1).click();
  await page.getByRole('heading', { name: 'What changed at version 1' }).waitFor();
  await page.locator('[data-testid=version-change][data-kind=created]').nth(2).waitFor();
  assert.is(await page.getByTestId('version-change-list').locator('b').count(), 0, 'content is text, not HTML');

  // And an older version's examples are read-only, its original content kept
  await page.getByRole('button', { name: 'Examples', exact: true }).click();
  await page.getByRole('heading', { name: 'Examples at version 1' }).waitFor();
  await rows(page).nth(2).waitFor();
  assert.equal((await outputs(page))[0], { answer: 'A tracing server' });
  assert.is(await page.getByRole('button', { name: /^Edit example/ }).count(), 0);

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a person filters by split, makes a split, fills, renames and deletes it, and labels the dataset', async ({ server, browser }) => {
  const { datasetId } = await upload(server, 'splittable', ['train', 'train', null]);
  const { page, context, problems } = await openPage(browser);
  await page.goto(server.href(`/datasets/${encodeURIComponent(datasetId)}`));
  await rows(page).nth(2).waitFor();
  const splitItem = (name: string) => page.locator(`[data-testid=split-item][data-name="${name}"]`);
  const splitsOf = () =>
    rows(page).evaluateAll((els) =>
      els.map((row) => [...row.querySelectorAll('[data-testid=example-split]')].map((b) => b.textContent?.trim()).join(' ') || '–'),
    );

  // Given each example shows its splits, and train counts two of this dataset's examples
  assert.equal(await splitsOf(), ['train', 'train', '–']);
  assert.is((await splitItem('train').getByTestId('split-count').textContent())?.trim(), '2');

  // When the examples are filtered to train, then two are shown; "All examples" shows the three again
  await page.getByRole('button', { name: 'Show split train' }).click();
  await page.getByText('2 examples in train').waitFor();
  assert.is(await rows(page).count(), 2);
  await page.getByRole('button', { name: 'All examples' }).click();
  await rows(page).nth(2).waitFor();

  // When a split "hard" is made and the last two examples are added to it
  await page.getByLabel('New split name').fill('hard');
  await page.getByTestId('splits-card').getByRole('button', { name: 'Add' }).click();
  await splitItem('hard').waitFor();
  await rows(page).nth(1).getByRole('checkbox').check();
  await rows(page).nth(2).getByRole('checkbox').check();
  await page.getByTestId('selection-toolbar').getByText('2 examples').waitFor();
  await page.getByLabel('Add selected to split').selectOption('hard');

  // Then they show it, and it counts two
  await page.locator('[data-testid=example-split]', { hasText: 'hard' }).nth(1).waitFor();
  assert.equal(await splitsOf(), ['train', 'hard train', 'hard']);
  assert.is((await splitItem('hard').getByTestId('split-count').textContent())?.trim(), '2');
  await screenshot(page, 'datasets-splits');

  // When it is renamed, the examples show the new name; when one leaves it, it counts one
  await page.getByRole('button', { name: 'Rename split hard' }).click();
  await page.getByLabel('New name of split hard').fill('hard-cases');
  await page.getByTestId('splits-card').getByRole('button', { name: 'Save' }).click();
  await splitItem('hard-cases').waitFor();
  await page.locator('[data-testid=example-split]', { hasText: 'hard-cases' }).nth(1).waitFor();
  await rows(page).nth(1).getByRole('checkbox').uncheck();
  await page.getByLabel('Remove selected from split').selectOption('hard-cases');
  const badges = page.getByTestId('example-split');
  await badges.nth(3).waitFor({ state: 'detached' });
  await badges.nth(2).waitFor();
  assert.equal(await splitsOf(), ['train', 'hard-cases train', '–']);
  assert.is((await splitItem('hard-cases').getByTestId('split-count').textContent())?.trim(), '1');

  // When it is deleted, it is gone from the examples
  await page.getByRole('button', { name: 'Delete split hard-cases' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await splitItem('hard-cases').waitFor({ state: 'detached' });
  await badges.nth(2).waitFor({ state: 'detached' });
  await badges.nth(1).waitFor();

  // When a label is made and given to the dataset, it is shown
  await page.getByRole('button', { name: 'Edit labels' }).click();
  await page.getByLabel('New label name').fill('support');
  await page.getByTestId('labels-card').getByRole('button', { name: 'Create' }).click();
  await page.getByTestId('labels-card').getByLabel('support').waitFor();
  assert.is(await page.getByTestId('labels-card').getByLabel('support').isChecked(), true);
  await page.getByRole('button', { name: 'Save labels' }).click();
  await page.getByTestId('dataset-label').filter({ hasText: 'support' }).waitFor();
  const { data: labels } = await api(server, `/v1/datasets/${datasetId}/labels`);
  assert.equal(
    labels.map((l: { name: string }) => l.name),
    ['support'],
  );
  await screenshot(page, 'datasets-splits-labels');

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a person opens an experiment and reads each example’s runs by repetition, with errors, latency, tokens and scores', async ({
  server,
  browser,
}) => {
  // Given an experiment with two repetitions: example 1 run twice (traced, with tokens), example 2 once with an error
  const { datasetId, nodeIds } = await upload(server, 'experimented', [null, null, null]);
  const traceId = 'ab'.repeat(16);
  await seed(server, 'experiment-traces', [
    spanRecord({
      traceId,
      name: 'llm',
      spanKind: 'LLM',
      attributes: attrs({ 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': 120, 'llm.token_count.completion': 30 }),
    }),
  ]);
  const { data: experiment } = await api(server, `/v1/datasets/${datasetId}/experiments`, { name: 'gpt-run', repetitions: 2 });
  const began = Date.now();
  const start = new Date(began).toISOString();
  const end = new Date(began + 850).toISOString();
  const run = async (i: number, repetition: number, output: string, extra: Record<string, unknown>, score?: number) => {
    const { data } = await api(server, `/v1/experiments/${experiment.id}/runs`, {
      dataset_example_id: nodeIds[i],
      output,
      repetition_number: repetition,
      start_time: start,
      end_time: end,
      ...extra,
    });
    if (score !== undefined)
      await api(server, '/v1/experiment_evaluations', {
        experiment_run_id: data.id,
        name: 'correctness',
        annotator_kind: 'CODE',
        start_time: start,
        end_time: start,
        result: { score, label: score > 0.5 ? 'correct' : 'wrong', explanation: 'compared with the reference' },
      });
  };
  await run(0, 1, 'A tracing server', { trace_id: traceId }, 1);
  await run(0, 2, 'A <b>server</b>', {}, 0);
  await run(1, 1, '', { error: 'TimeoutError: the model did not answer' });

  // When the experiment is opened from the dataset page
  const { page, context, problems } = await openPage(browser);
  await page.goto(server.href(`/datasets/${encodeURIComponent(datasetId)}`));
  // (experiments are listed on the dataset's Experiments tab)
  await page.getByRole('link', { name: 'Experiments (1)' }).click();
  // ...by a click on its row (the run count, not the name link)
  await page.locator('[data-testid=experiment-row][data-name="gpt-run"]').getByTestId('run-count').click();
  await page.getByRole('heading', { name: 'gpt-run' }).waitFor();

  // Then each example's runs are shown by repetition, with output, error, latency, tokens and score
  const runRows = page.getByTestId('experiment-run');
  await runRows.nth(2).waitFor();
  assert.equal(await runRows.evaluateAll((els) => els.map((e) => e.getAttribute('data-repetition'))), ['1', '2', '1']);
  assert.is((await runRows.nth(0).getByTestId('run-output').textContent())?.trim(), 'A tracing server');
  assert.match((await runRows.nth(0).getByTestId('run-tokens').textContent()) ?? '', /150 \(120 in · 30 out\)/);
  assert.match((await runRows.nth(0).getByTestId('run-latency').textContent()) ?? '', /850\s*ms|0\.85\s*s/);
  assert.match((await runRows.nth(0).getByTestId('run-score').textContent()) ?? '', /1\.00\s*correct/);
  assert.match((await runRows.nth(1).getByTestId('run-score').textContent()) ?? '', /0\.00\s*wrong/);
  assert.is(await page.getByTestId('experiment-runs').locator('b').count(), 0, 'outputs are text, not HTML');
  assert.match((await runRows.nth(2).getByTestId('run-error').textContent()) ?? '', /TimeoutError/);

  // And the summary gives the runs, the tokens and the mean score
  assert.match((await page.getByTestId('experiment-run-counts').textContent()) ?? '', /2 ok · 1 failed · 3 missing/);
  assert.is((await page.getByTestId('experiment-tokens').textContent())?.trim(), '150');
  assert.match((await page.getByTestId('experiment-mean-score').textContent()) ?? '', /0\.50/);
  await screenshot(page, 'datasets-experiment');

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test.run();
