import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Locator, Page } from 'playwright-core';
import { callAs, createUser } from '../support/authClient.ts';
import { launchBrowser, openPage, screenshotLeftOpen } from './support/browser.ts';
import { signIn, submitLogin, unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';
import { chatTurn, exportSpans, type OtlpSpan } from './tracingFixtures.ts';

/**
 * Annotations in a real browser, auth on: an admin creates a categorical config in settings (the
 * server's validation message shows), assigns it to a project, annotates a span with a label
 * button, changes it, writes an explanation and a note (shown as text, never HTML), and filters
 * the traces table by the label. A viewer sees the annotations but no control that writes.
 */

type Ctx = { server: UiServer; browser: Browser; turns: OtlpSpan[][]; projectId: string };
const test = suite<Ctx>('annotation pages', {} as Ctx);

const PROJECT = 'judged';
const text = async (locator: Locator): Promise<string> => ((await locator.textContent()) ?? '').trim();

test.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: true });
  ctx.browser = await launchBrowser();
  const admin = { bearer: ctx.server.adminSecret! };
  await createUser(ctx.server, admin, { email: 'ada@example.com', username: 'ada', role: 'ADMIN', password: 'ada-initial-pw-1' });
  await createUser(ctx.server, admin, { email: 'vic@example.com', username: 'vic', role: 'VIEWER', password: 'vic-initial-pw-1' });
  const now = Date.now();
  ctx.turns = [0, 1, 2].map((i) => chatTurn({ startMs: now - (i + 1) * 60_000, index: i, sessionId: 'sess-judged' }));
  await exportSpans(ctx.server, PROJECT, ctx.turns.flat(), { authorization: `Bearer ${ctx.server.adminSecret}` });
  const reply = await callAs(ctx.server, 'POST', '/graphql', {
    as: admin,
    json: { query: 'query($n: String!) { getProjectByName(name: $n) { id } }', variables: { n: PROJECT } },
  });
  ctx.projectId = reply.body.data.getProjectByName.id;
  // An LLM judge's verdict on the session, sent over REST
  const judged = await callAs(ctx.server, 'POST', '/v1/session_annotations?sync=true', {
    as: admin,
    json: {
      data: [
        {
          session_id: 'sess-judged',
          name: 'helpfulness',
          annotator_kind: 'LLM',
          result: { label: 'helpful', score: 0.9, explanation: 'Answers every turn' },
        },
      ],
    },
  });
  assert.is(judged.status, 200, JSON.stringify(judged.body));
  // Evals with long names and labels on another turn's spans: their chips must fit the tables
  const evals = ctx.turns[2]!.flatMap((span) => [
    {
      span_id: span.spanId,
      name: 'helpfulness_according_to_the_rubric',
      annotator_kind: 'HUMAN',
      result: { label: 'very helpful indeed', score: 4.5 },
    },
    { span_id: span.spanId, name: 'toxicity', annotator_kind: 'CODE', result: { score: 0.01 } },
    { span_id: span.spanId, name: 'hallucination', annotator_kind: 'LLM', result: { label: 'factual' } },
    { span_id: span.spanId, name: 'conciseness', annotator_kind: 'LLM', result: { label: 'concise' } },
  ]);
  const evaluated = await callAs(ctx.server, 'POST', '/v1/span_annotations?sync=true', { as: admin, json: { data: evals } });
  assert.is(evaluated.status, 200, JSON.stringify(evaluated.body));
});

test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

test.after.each(() => screenshotLeftOpen('annotations'));

test('an admin creates a categorical config, assigns it, annotates a span, changes it, adds a note and filters the traces by the label', async ({
  server,
  browser,
  turns,
  projectId,
}) => {
  const { page, problems } = await openPage(browser);
  await signIn(page, server, 'ada@example.com', 'ada-initial-pw-1', 'ada-own-password-1');

  // Before any config exists, a span is labelled and scored from its page
  const [firstRoot, , firstLlm] = turns[1]!;
  await page.goto(server.href(`/projects/${projectId}/traces/${firstRoot!.traceId}?span=${firstLlm!.spanId}`));
  await page.getByTestId('span-name').getByText('ChatCompletion').waitFor();
  await page
    .getByTestId('span-details')
    .getByRole('button', { name: /^Annotations/ })
    .click();
  const quick = page.getByTestId('annotations-panel-span').getByTestId('quick-label');
  await quick.getByLabel('Annotation name').fill('helpful');
  await quick.getByLabel('Label', { exact: true }).fill('yes');
  await quick.getByLabel('Score').fill('0.9');
  await quick.getByRole('button', { name: 'Label' }).click();
  const quickItem = page.getByTestId('annotations-panel-span').locator('[data-testid="annotation-item"][data-name="helpful"]');
  await quickItem.getByTestId('annotation-label').getByText('yes', { exact: true }).waitFor();
  assert.match(await text(quickItem), /0\.9/);
  assert.match(await text(quickItem), /Human/);
  await screenshot(page, 'annotations-quick-label');

  // Given the settings' annotation configs, when a config with a repeated label is created, the server's message shows
  await page.goto(server.href('/settings/annotations'));
  await page.getByText('No annotation configs yet').waitFor();
  await page.getByRole('button', { name: 'New config' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.locator('input[name="config-name"]').fill('correctness');
  await dialog.getByLabel('Label 1', { exact: true }).fill('correct');
  await dialog.getByLabel('Score 1').fill('1');
  await dialog.getByLabel('Label 2', { exact: true }).fill('correct');
  await dialog.getByRole('button', { name: 'Create config' }).click();
  const refusal = await text(dialog.getByRole('alert'));
  assert.match(refusal, /correct/i, refusal);
  await screenshot(page, 'annotations-config-refused');
  // When the second label is fixed, the config is created and listed
  await dialog.getByLabel('Label 2', { exact: true }).fill('incorrect');
  await dialog.getByLabel('Score 2').fill('0');
  await dialog.getByRole('button', { name: 'Create config' }).click();
  const row = page.locator('[data-testid="annotation-config-row"][data-name="correctness"]');
  await row.waitFor();
  assert.match(await text(row), /Categorical/);
  assert.match(await text(row), /correct.*incorrect/);
  // And a continuous config with its bounds the wrong way round is refused, then created
  await page.getByRole('button', { name: 'New config' }).click();
  await dialog.locator('input[name="config-name"]').fill('relevance');
  await dialog.getByText('Continuous', { exact: true }).click();
  await dialog.getByLabel('Lower bound').fill('1');
  await dialog.getByLabel('Upper bound').fill('0');
  await dialog.getByRole('button', { name: 'Create config' }).click();
  assert.match(await text(dialog.getByRole('alert')), /bound/i);
  await dialog.getByLabel('Lower bound').fill('0');
  await dialog.getByLabel('Upper bound').fill('1');
  await dialog.getByRole('button', { name: 'Create config' }).click();
  await page.locator('[data-testid="annotation-config-row"][data-name="relevance"]').waitFor();
  // And both are assigned to the project, the rows say so
  for (const name of ['correctness', 'relevance']) {
    await page.getByRole('button', { name: `Projects of ${name}` }).click();
    await page.getByRole('dialog').getByLabel(PROJECT).check();
    await page.getByRole('dialog').getByRole('button', { name: 'Save projects' }).click();
    await page
      .locator(`[data-testid="annotation-config-row"][data-name="${name}"] [data-testid="config-projects"]`)
      .getByText(PROJECT)
      .waitFor();
  }
  await screenshot(page, 'annotations-settings');

  // When the LLM span of the newest trace is opened and its Annotations tab used
  const [root, , llm] = turns[0]!;
  await page.goto(server.href(`/projects/${projectId}/traces/${root!.traceId}?span=${llm!.spanId}`));
  await page.getByTestId('span-name').getByText('ChatCompletion').waitFor();
  await page
    .getByTestId('span-details')
    .getByRole('button', { name: /^Annotations/ })
    .click();
  const panel = page.getByTestId('annotations-panel-span');
  await panel.getByRole('button', { name: 'correct', exact: true }).click();
  // Then the annotation is listed with its label, author and kind
  const item = panel.locator('[data-testid="annotation-item"][data-name="correctness"]');
  await item.getByTestId('annotation-label').getByText('correct', { exact: true }).waitFor();
  assert.match(await text(item), /Human/);
  assert.match(await text(item), /ada/);
  assert.is(await panel.getByRole('button', { name: 'correct', exact: true }).getAttribute('aria-pressed'), 'true');

  // When another label is clicked, the same annotation changes (no second one)
  await panel.getByRole('button', { name: 'incorrect', exact: true }).click();
  await item.getByTestId('annotation-label').getByText('incorrect', { exact: true }).waitFor();
  assert.is(await panel.getByTestId('annotation-item').count(), 1);

  // And an explanation written in the edit dialog shows as text, markup and all
  await item.getByRole('button', { name: 'Edit correctness' }).click();
  await page.getByRole('dialog').getByLabel('Explanation').fill('Cites the wrong doc <img src=x onerror=alert(1)>');
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
  await item.getByTestId('annotation-explanation').getByText('Cites the wrong doc <img src=x onerror=alert(1)>').waitFor();
  assert.is(await panel.locator('img').count(), 0, 'no element made from annotation text');

  // And a score within the continuous config's bounds is saved from the number field
  await panel.getByLabel('relevance score', { exact: true }).fill('0.75');
  await panel.locator('[data-config="relevance"]').getByRole('button', { name: 'Save' }).click();
  await panel.locator('[data-testid="annotation-item"][data-name="relevance"]').getByText('0.75').waitFor();

  // And a note is added to the span
  await panel.getByLabel('New note').fill('Retriever picked doc-4 first; check the ranking.');
  await panel.getByRole('button', { name: 'Add note' }).click();
  await panel.getByTestId('note-item').getByText('Retriever picked doc-4 first; check the ranking.').waitFor();
  await screenshot(page, 'annotations-span-panel');

  // When the trace itself is annotated from the header
  await page.getByRole('button', { name: 'Annotate trace' }).click();
  const tracePanel = page.getByRole('dialog').getByTestId('annotations-panel-trace');
  await tracePanel.getByRole('button', { name: 'correct', exact: true }).click();
  await tracePanel.locator('[data-testid="annotation-item"][data-name="correctness"]').waitFor();
  await screenshot(page, 'annotations-trace-dialog');
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  await page.getByTestId('annotation-chips').getByText('correct', { exact: true }).waitFor();

  // When the traces table is filtered by correctness = incorrect, only the annotated trace is listed
  await page.goto(server.href(`/projects/${projectId}/traces`));
  await page.waitForFunction(() => (document as any).querySelectorAll('[data-testid="trace-row"]').length === 3);
  await page.getByLabel('Annotation name').selectOption('correctness');
  await page.getByLabel('Annotation label').selectOption('incorrect');
  await page.waitForURL(/annotation=correctness&label=incorrect/);
  await page.waitForFunction(
    () =>
      (document as any).querySelectorAll('[data-testid="trace-row"]').length === 1 &&
      !(document as any).querySelector('.table-card.loading'),
  );
  const only = page.getByTestId('trace-row');
  assert.is(await only.getAttribute('data-trace-id'), root!.traceId);
  // Its chips show the trace's and the root span's annotations (the LLM span's is in the trace)
  await only.getByTestId('annotation-chip').first().waitFor();
  assert.match(await text(only.getByTestId('annotation-chips')), /correctness\s*correct/);
  await screenshot(page, 'annotations-traces-filtered');

  // And a label nobody gave matches nothing
  await page.goto(server.href(`/projects/${projectId}/traces?annotation=correctness&label=nonexistent`));
  await page.getByText('No trace matches these filters').waitFor();

  // And the spans table filtered the same way lists the LLM span
  await page.goto(server.href(`/projects/${projectId}/spans?annotation=correctness&label=incorrect`));
  await page.waitForFunction(() => (document as any).querySelectorAll('[data-testid="span-row"]').length === 1);
  assert.match(await text(page.getByTestId('span-row')), /ChatCompletion/);
  assert.match(await text(page.getByTestId('span-row').getByTestId('annotation-chips')), /correctness\s*incorrect/);

  // On a 1440 px screen, every span's chips fit inside the table: nothing is cut off or needs a sideways scroll
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(server.href(`/projects/${projectId}/spans`));
  await page.locator('[data-testid="span-row"] [data-testid="annotation-chip"]').first().waitFor();
  const fit = await page.evaluate(() => {
    const card = (document as any).querySelector('[data-testid="spans-table"]').closest('.table-card');
    const right = card.getBoundingClientRect().right;
    const chips = [...(document as any).querySelectorAll('[data-testid="annotation-chips"]')];
    return {
      sideways: card.scrollWidth - card.clientWidth,
      chips: chips.length,
      outside: chips.filter((c: any) => c.getBoundingClientRect().right > right).length,
    };
  });
  assert.ok(fit.chips >= 4, `chips shown: ${fit.chips}`);
  assert.equal({ sideways: fit.sideways, outside: fit.outside }, { sideways: 0, outside: 0 });
  await screenshot(page, 'annotations-spans-1440');

  assert.equal(unexpectedProblems(problems), []);
  await page.context().close();
});

test('a viewer sees the annotations, notes and session annotations but no control that writes', async ({
  server,
  browser,
  turns,
  projectId,
}) => {
  const { page, problems } = await openPage(browser);
  await signIn(page, server, 'vic@example.com', 'vic-initial-pw-1', 'vic-own-password-1');
  const [root, , llm] = turns[0]!;
  // Given the span annotated by the admin
  await page.goto(server.href(`/projects/${projectId}/traces/${root!.traceId}?span=${llm!.spanId}`));
  // Then its Annotations tab counts two annotations and a note
  await page.getByTestId('annotation-count').getByText('3', { exact: true }).waitFor();
  await page
    .getByTestId('span-details')
    .getByRole('button', { name: /^Annotations/ })
    .click();
  const panel = page.getByTestId('annotations-panel-span');
  // And the annotation and the note are listed
  await panel.getByTestId('annotation-item').getByText('incorrect', { exact: true }).waitFor();
  await panel.getByTestId('note-item').waitFor();
  // And there is nothing to annotate, edit, delete or write with
  assert.is(await panel.getByRole('region', { name: 'Annotate' }).count(), 0);
  assert.is(await panel.getByTestId('annotation-control').count(), 0);
  assert.is(await panel.getByRole('button', { name: /^(Edit|Delete)/ }).count(), 0);
  assert.is(await panel.getByLabel('New note').count(), 0);
  assert.is(await page.getByRole('button', { name: 'Annotate trace' }).count(), 0);
  await screenshot(page, 'annotations-viewer-span');

  // When the session opens, the judge's session annotation shows, read-only
  await page.goto(server.href('/redirects/sessions/sess-judged'));
  const sessionPanel = page.getByTestId('annotations-panel-session');
  const verdict = sessionPanel.locator('[data-testid="annotation-item"][data-name="helpfulness"]');
  await verdict.waitFor();
  assert.match(await text(verdict), /helpful/);
  assert.match(await text(verdict), /LLM/);
  assert.match(await text(verdict), /Answers every turn/);
  assert.is(await sessionPanel.getByRole('button').count(), 0);
  await screenshot(page, 'annotations-viewer-session');

  assert.equal(unexpectedProblems(problems), []);
  await page.context().close();
});

test('an admin edits a freeform config and deletes it', async ({ server, browser }) => {
  const { page, problems } = await openPage(browser);
  await page.goto(server.href('/login'));
  await signInAgain(page);
  // Given a freeform config
  await page.goto(server.href('/settings/annotations'));
  await page.getByRole('button', { name: 'New config' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.locator('input[name="config-name"]').fill('tone');
  await dialog.getByText('Freeform', { exact: true }).click();
  await dialog.getByRole('button', { name: 'Create config' }).click();
  const row = page.locator('[data-testid="annotation-config-row"][data-name="tone"]');
  await row.getByText('Free text').waitFor();
  // When its description is edited, the row shows it
  await row.getByRole('button', { name: 'Edit tone' }).click();
  await dialog.locator('input[name="config-description"]').fill('How the answer sounds <b>to a customer</b>');
  await dialog.getByRole('button', { name: 'Save config' }).click();
  await row.getByText('How the answer sounds <b>to a customer</b>').waitFor();
  // And when it is deleted (confirmed), it is gone and the others stay
  await row.getByRole('button', { name: 'Delete tone' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await row.waitFor({ state: 'detached' });
  assert.is(await page.getByTestId('annotation-config-row').count(), 2);
  assert.equal(unexpectedProblems(problems), []);
  await page.context().close();
});

/** The admin's password was chosen in the first test. */
const signInAgain = async (page: Page) => {
  await submitLogin(page, 'ada@example.com', 'ada-own-password-1');
  await page.waitForURL(/\/projects/);
};

// Functions passed to page.waitForFunction run in the browser; the project's types have no DOM.
declare const document: unknown;

test.run();
