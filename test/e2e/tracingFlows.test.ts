import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchBrowser, openPage } from './support/browser.ts';
import { unexpectedProblems } from './support/flows.ts';
import { inkBox, screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';
import { chatTurn, exportSpans, hostileTrace, type OtlpSpan } from './tracingFixtures.ts';

// Functions passed to page.evaluate/waitForFunction run in the browser; the project's types have no DOM.
declare const document: any;
declare const window: any;

/** What a person reads in an element (trimmed). */
const text = async (locator: Locator): Promise<string> => ((await locator.textContent()) ?? '').trim();
/**
 * The tracing pages in a real browser, on traces sent over OTLP/JSON: a project's traces, a
 * trace's span tree and a span's content, filters and paging, sessions, the /redirects links,
 * and span content that tries to run script.
 */

type Ctx = { server: UiServer; browser: Browser; turns: OtlpSpan[][]; hostile: OtlpSpan[] };
const test = suite<Ctx>('tracing pages', {} as Ctx);

const TURNS = 60;
const isError = (i: number) => i % 7 === 0;
const sessionOf = (i: number) => (i < 6 ? 'sess-alpha' : i < 10 ? 'sess-beta' : undefined);

test.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: false });
  ctx.browser = await launchBrowser();
  const now = Date.now();
  ctx.turns = Array.from({ length: TURNS }, (_, i) =>
    chatTurn({ startMs: now - (i + 1) * 20 * 60_000, index: i, sessionId: sessionOf(i), error: isError(i) }),
  );
  // A span id that reads as a number ("1e99"): links and the URL must keep it as text
  ctx.turns[3]![2]!.spanId = '0000000000001e99';
  await exportSpans(ctx.server, 'support-bot', ctx.turns.flat());
  // An evaluator's relevance verdict on each document turn 1 retrieved
  const retriever = ctx.turns[1]!.find((span) => span.name === 'retrieve_docs')!;
  const judged = await fetch(ctx.server.href('/v1/document_annotations?sync=true'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      data: [
        {
          span_id: retriever.spanId,
          document_position: 0,
          name: 'relevance',
          annotator_kind: 'LLM',
          result: { label: 'relevant', score: 1 },
        },
        {
          span_id: retriever.spanId,
          document_position: 1,
          name: 'relevance',
          annotator_kind: 'LLM',
          result: { label: 'unrelated', score: 0 },
        },
      ],
    }),
  });
  if (!judged.ok) throw new Error(`document annotations refused: ${judged.status} ${await judged.text()}`);
  ctx.hostile = hostileTrace(now - 60_000);
  await exportSpans(ctx.server, 'sandbox', ctx.hostile);
});

test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

const projectId = async (server: UiServer, name: string): Promise<string> => {
  const response = await fetch(server.href('/graphql'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'query($n: String!) { getProjectByName(name: $n) { id } }', variables: { n: name } }),
  });
  return ((await response.json()) as { data: { getProjectByName: { id: string } } }).data.getProjectByName.id;
};

const traceRows = (page: Page) => page.getByTestId('trace-row');
const waitForRows = async (page: Page, expected: number) => {
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid="trace-row"]').length === n && !document.querySelector('.table-card.loading'),
    expected,
  );
};

test('projects → traces → a trace → its spans: tree, input and output by type, LLM chat, documents, tool call, exception', async ({
  server,
  browser,
}) => {
  const { page, problems } = await openPage(browser);
  // Given the projects page
  await page.goto(server.href('/projects'));
  // When the project is opened
  await page.getByRole('link', { name: 'support-bot' }).click();
  // Then its traces are listed, newest first, a page of 50, with name, previews, tokens and span counts
  await page.getByTestId('traces-table').waitFor();
  await waitForRows(page, 50);
  const first = traceRows(page).first();
  assert.match(await text(first), /rag_query/);
  assert.match(await text(first), /How do I reset my password\? \(#0\)/, 'the input preview');
  assert.is(await text(first.getByTestId('span-count')), '4', 'span count');
  assert.is(await first.locator('[data-status]').getAttribute('data-status'), 'ERROR', 'turn 0 failed');
  await screenshot(page, 'tracing-traces');

  // When the second (successful) trace is opened by a click on its row outside the name link (its latency)
  await traceRows(page).nth(1).locator('td.num').first().click();
  await page.waitForURL(/\/traces\/[0-9a-f]{32}\?span=[0-9a-f]{16}/);
  // Then the tree shows the four spans with the root selected, its JSON input as a tree and its markdown output rendered
  await page.getByTestId('span-tree').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="span-tree"] [role="treeitem"]').length === 4);
  assert.is(await text(page.getByTestId('span-name')), 'rag_query');
  const input = page.getByTestId('io-input');
  assert.match(await text(input), /question/);
  assert.match(await text(input), /What is the refund policy for annual plans\? \(#1\)/);
  assert.is(await text(page.getByTestId('io-output').locator('strong').first()), 'Sure.', 'markdown rendered');
  // The JSON tree's expander is drawn, not a glyph the font may lack (it came out as a stray "ʻ")
  const expander = await inkBox(page, input.locator('.arrow').first());
  assert.ok(expander.width >= 6 && expander.height >= 6, `the expander is drawn: ${JSON.stringify(expander)}`);
  // Every time on the page (the trace's start, the span's) is on one 24-hour clock
  const times = await text(page.locator('body'));
  assert.match(times, /\b\d{2}:\d{2}\b/);
  assert.not.match(times, /\d:\d{2}(:\d{2})?\s?[AP]M/);

  // When the LLM span is selected
  await page.locator('[role="treeitem"]', { hasText: 'ChatCompletion' }).click();
  await page.getByTestId('span-name').getByText('ChatCompletion').waitFor();
  // Then its invocation parameters and its token split show beside the messages
  assert.match(await text(page.getByTestId('invocation-parameters')), /temperature\s*0\.2[\s\S]*max_tokens\s*512/);
  assert.match(
    await text(page.getByTestId('token-split')),
    /Prompt\s*251\s*Cached \(read\)\s*200\s*Completion\s*80\s*Reasoning\s*24\s*Total\s*331/,
  );
  // And its messages show as a chat, with the tool call it asked for
  await page.getByTestId('chat-message').first().waitFor();
  const roles = await page.getByTestId('chat-message').evaluateAll((els) => els.map((e) => e.getAttribute('data-role')));
  assert.equal(roles, ['system', 'user', 'assistant']);
  assert.match(await text(page.getByTestId('tool-call')), /lookup_account\(\)/);
  assert.match(await text(page.getByTestId('tool-call')), /user_id/);
  await screenshot(page, 'tracing-trace-detail');

  // When the retriever span is selected, its documents show with their scores
  await page.locator('[role="treeitem"]', { hasText: 'retrieve_docs' }).click();
  await page.getByTestId('document').first().waitFor();
  assert.is(await page.getByTestId('document').count(), 2);
  assert.match(await text(page.getByTestId('document').first()), /score 0\.920/);
  // ...each with its relevance annotation
  assert.match(await text(page.getByTestId('document').nth(0).getByTestId('document-annotations')), /relevance\s*relevant/);
  assert.match(await text(page.getByTestId('document').nth(1).getByTestId('document-annotations')), /relevance\s*unrelated/);
  await screenshot(page, 'tracing-documents');

  // And the attributes tab shows the attribute tree
  await page.getByRole('button', { name: 'Attributes' }).click();
  assert.match(await text(page.getByTestId('attributes')), /retrieval/);
  // ...where an opened array lists its items, and no `length` beside them
  const tree = page.getByTestId('attributes');
  for (let round = 0; round < 4; round++) {
    const closed = tree.locator('.arrow:not(.expanded)');
    const n = await closed.count();
    if (n === 0) break;
    for (let i = n - 1; i >= 0; i--) await closed.nth(i).click();
  }
  const keys = await tree.locator('.property').allTextContents();
  assert.ok(keys.includes('0') && keys.includes('1'), keys.join(' '));
  assert.not.ok(keys.includes('length'), keys.join(' '));
  assert.match(await text(tree), /Array\(2\)/);
  await screenshot(page, 'tracing-attributes-tree');

  // When the failed trace is opened and its LLM span selected, the exception shows with its stack trace
  await page.goBack();
  await waitForRows(page, 50);
  await traceRows(page).first().locator('td.num').first().click();
  await page.locator('[role="treeitem"]', { hasText: 'ChatCompletion' }).click();
  await page.getByTestId('span-name').getByText('ChatCompletion').waitFor();
  // Its answer was a tool call only: the call shows in the output message, and no empty Output card
  await page.getByTestId('tool-call').waitFor();
  assert.match(await text(page.getByTestId('tool-call')), /lookup_account/);
  assert.is(await page.getByTestId('io-output').count(), 0);
  await page.getByTestId('tool-call').scrollIntoViewIfNeeded();
  await screenshot(page, 'tracing-tool-call-only');
  await page.getByRole('button', { name: /Events/ }).click();
  const exception = page.getByTestId('exception');
  assert.match(await text(exception), /RateLimitError/);
  assert.match(await text(exception), /File "app\.py", line 42/);
  await screenshot(page, 'tracing-exception');

  // The Spans tab previews an LLM span by its messages: the user's question, the answer with its tool call
  const project = /\/projects\/([^/]+)\//.exec(new URL(page.url()).pathname)![1]!;
  await page.goto(server.href(`/projects/${project}/spans?name=ChatCompletion`));
  const llmRow = page.getByTestId('span-row').first();
  await llmRow.waitFor();
  const cells = await llmRow.locator('.preview').allTextContents();
  assert.match(cells[0] ?? '', /\(#\d+\)$/, cells.join(' | '));
  assert.match(cells[1] ?? '', /^→ lookup_account\(\{"user_id": 42\}\)/, cells.join(' | '));
  await screenshot(page, 'tracing-spans-previews');
  assert.equal(unexpectedProblems(problems), []);
  await page.context().close();
});

test('filters, sort and cursor paging on the Traces and Spans tabs', async ({ server, browser }) => {
  const { page, problems } = await openPage(browser);
  const id = await projectId(server, 'support-bot');
  await page.goto(server.href(`/projects/${id}/traces`));
  await waitForRows(page, 50);

  // When paging forward, the last 10 traces show; back, the first 50 again
  await page.getByRole('button', { name: 'Next' }).click();
  await waitForRows(page, 10);
  assert.match(await text(traceRows(page).last()), /\(#59\)/);
  await page.getByRole('button', { name: 'Previous' }).click();
  await waitForRows(page, 50);

  // When sorting by latency (longest first), the slowest turn leads
  await page.getByRole('button', { name: /^Latency/ }).click();
  await page.waitForURL(/sort=latencyMs/);
  await page.waitForFunction(() => /\(#59\)/.test(document.querySelector('[data-testid="trace-row"]')?.textContent ?? ''));

  // When filtering on status ERROR, only the failed turns remain (the filter lands in the URL); the
  // chips say they test the root span (the project card counts traces with an error anywhere)
  assert.is(await text(page.getByTestId('status-scope')), 'Root span');
  assert.match((await page.getByRole('button', { name: 'error', exact: true }).getAttribute('title')) ?? '', /root span/);
  await page.getByRole('button', { name: 'error', exact: true }).click();
  await page.waitForURL(/status=ERROR/);
  const errors = Array.from({ length: TURNS }, (_, i) => i).filter(isError).length;
  await waitForRows(page, errors);
  const statuses = await page
    .locator('[data-testid="trace-row"] [data-status]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
  assert.ok(
    statuses.every((s) => s === 'ERROR'),
    statuses.join(),
  );
  await screenshot(page, 'tracing-traces-filtered');

  // And an attribute filter narrows to one session's turns; a reload keeps the filters
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await waitForRows(page, 50);
  await page.getByLabel('Attribute filter').fill('session.id=sess-alpha');
  await page.getByLabel('Attribute filter').press('Enter');
  await waitForRows(page, 6);
  await page.reload();
  await waitForRows(page, 6);
  assert.is(await page.getByLabel('Attribute filter').inputValue(), 'session.id=sess-alpha');

  // And a malformed attribute filter is explained, not sent
  await page.getByLabel('Attribute filter').fill('no equals sign');
  await page.getByLabel('Attribute filter').press('Enter');
  assert.match(await text(page.getByRole('alert')), /key=value/);

  // On the Spans tab, a kind filter and a name filter keep only matching spans
  await page.getByRole('link', { name: 'Spans', exact: true }).click();
  await page.waitForURL(/\/spans/);
  await page.getByTestId('spans-table').waitFor();
  await page.locator('details.kinds summary').click();
  await page.getByLabel('tool', { exact: true }).check();
  await page.waitForURL(/kind=tool/);
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('[data-testid="span-row"]')];
    return rows.length === 50 && rows.every((r) => r.textContent?.includes('lookup_account'));
  });
  await screenshot(page, 'tracing-spans');
  // A click anywhere on a span's row opens its trace with that span selected
  const spanRow = page.getByTestId('span-row').first();
  const spanId = await spanRow.getAttribute('data-span-id');
  await spanRow.locator('td.num').first().click();
  await page.waitForURL(new RegExp(`/traces/[0-9a-f]{32}\\?span=${spanId}$`));
  await page.getByTestId('span-name').getByText('lookup_account').waitFor();
  await page.goBack();
  await page.getByTestId('spans-table').waitFor();
  await page.getByLabel('Span name').fill('retrieve_docs');
  await page.getByLabel('Span name').press('Enter');
  await page.waitForURL(/name=retrieve_docs/);
  await page.waitForSelector('text=No span matches these filters');
  assert.equal(unexpectedProblems(problems), []);
  await page.context().close();
});

test('the filter language: completion of attribute keys, an inline error at its position, a shared URL, sessions filtered', async ({
  server,
  browser,
}) => {
  const { page, problems } = await openPage(browser);
  const id = await projectId(server, 'support-bot');
  await page.goto(server.href(`/projects/${id}/spans`));
  await page.getByTestId('spans-table').waitFor();
  const bar = page.getByLabel('Filter condition');
  // When a condition is typed up to the start of an attribute key
  await bar.click();
  await bar.pressSequentially("span_kind == 'LLM' and llm.mo");
  // Then the project's attribute key is offered, and Tab takes it
  const completion = page.getByRole('listbox', { name: 'Completions' });
  await completion.getByText('llm.model_name').waitFor();
  await screenshot(page, 'filters-completion');
  await bar.press('Tab');
  assert.is(await bar.inputValue(), "span_kind == 'LLM' and llm.model_name");
  // When the rest is typed and applied
  await bar.pressSequentially(" == 'gpt-4o-mini' and latency_ms > 2000");
  await bar.press('Enter');
  // Then exactly the LLM spans slower than 2 s are listed (turns 47..59: 400 + 37 i - 120 ms)
  await page.waitForURL(/where=/);
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid="span-row"]').length === 13 && !document.querySelector('.table-card.loading'),
  );
  const shared = page.url();

  // When it is saved under a name, the filter cleared, and the saved one chosen again
  const savedMenu = page.getByTestId('saved-filters');
  await savedMenu.locator('summary').click();
  await page.getByLabel('Saved filter name').fill('slow mini calls');
  await savedMenu.getByRole('button', { name: 'Save current' }).click();
  await savedMenu.locator('summary', { hasText: 'Saved (1)' }).waitFor();
  await page.getByTestId('filter-condition').getByRole('button', { name: 'Clear' }).click();
  await page.waitForFunction(() => !window.location.search.includes('where='));
  await savedMenu.locator('summary').click();
  await screenshot(page, 'filters-saved');
  await savedMenu.getByRole('button', { name: /^slow mini calls/ }).click();
  // Then the same rows come back
  await page.waitForURL(/where=/);
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid="span-row"]').length === 13 && !document.querySelector('.table-card.loading'),
  );

  // When a broken condition is typed
  await bar.fill('latency_ms >');
  await bar.press('Enter');
  // Then the error shows inline, at its position, and the list keeps the last good filter
  const error = page.getByTestId('filter-error');
  await error.waitFor();
  assert.match(await text(error), /At position 12: expected a field/);
  assert.ok(page.url() === shared, 'a refused condition does not change the URL');
  await screenshot(page, 'filters-error');

  // When the copied URL is opened afresh, the same view comes back
  const other = await openPage(browser);
  await other.page.goto(shared);
  await other.page.waitForFunction(
    () => document.querySelectorAll('[data-testid="span-row"]').length === 13 && !document.querySelector('.table-card.loading'),
  );
  assert.is(
    await other.page.getByLabel('Filter condition').inputValue(),
    "span_kind == 'LLM' and llm.model_name == 'gpt-4o-mini' and latency_ms > 2000",
  );
  await other.page.context().close();

  // Sessions take the same bar: sess-alpha has six turns, sess-beta four
  await page.goto(server.href(`/projects/${id}/sessions`));
  await page.getByTestId('sessions-table').waitFor();
  await page.getByTestId('filter-condition').locator('summary', { hasText: 'Examples' }).click();
  await page.getByRole('button', { name: 'trace_count >= 3' }).click();
  await page.waitForURL(/where=/);
  await page.getByLabel('Filter condition').fill('trace_count >= 5');
  await page.getByLabel('Filter condition').press('Enter');
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid="session-row"]').length === 1 && !document.querySelector('.table-card.loading'),
  );
  assert.match(await text(page.getByTestId('session-row').first()), /sess-alpha|\(#0\)|#\d/);
  await screenshot(page, 'filters-sessions');
  assert.equal(unexpectedProblems(problems), []);
  await page.context().close();
});

test('sessions: the list, a session as a conversation, each turn linked to its trace', async ({ server, browser, turns }) => {
  const { page, problems } = await openPage(browser);
  const id = await projectId(server, 'support-bot');
  await page.goto(server.href(`/projects/${id}/sessions`));
  await page.getByTestId('sessions-table').waitFor();
  const rows = page.getByTestId('session-row');
  assert.is(await rows.count(), 2);
  const alpha = rows.filter({ hasText: 'sess-alpha' });
  // The session's first input is its oldest turn's (turn #5), its last output the newest's
  assert.match(await text(alpha), /What is the refund policy for annual plans\? \(#5\)/, 'first input');
  assert.is((await text(alpha.locator('td').nth(4))).trim(), '6', 'turns');
  await screenshot(page, 'tracing-sessions');

  await alpha.locator('td').nth(4).click();
  await page.getByTestId('session-turns').waitFor();
  assert.is(await page.getByTestId('session-turn').count(), 6);
  assert.is(await text(page.getByTestId('session-id')), 'sess-alpha');
  await screenshot(page, 'tracing-session-detail');

  // The oldest turn comes first; its link opens its trace
  await page.getByTestId('turn-trace-link').first().click();
  await page.waitForURL(new RegExp(`/traces/${turns[5]![0]!.traceId}`));
  await page.getByTestId('span-tree').waitFor();
  assert.equal(unexpectedProblems(problems), []);
  await page.context().close();
});

test('the /redirects links land on the project, trace, span and session pages', async ({ server, browser, turns }) => {
  const { page } = await openPage(browser);
  const id = await projectId(server, 'support-bot');
  const turn = turns[3]!;

  await page.goto(server.href('/redirects/projects/support-bot'));
  await page.waitForURL(new RegExp(`/projects/${id}/traces$`));
  await page.getByTestId('traces-table').waitFor();

  await page.goto(server.href(`/redirects/traces/${turn[0]!.traceId}`));
  await page.waitForURL(new RegExp(`/projects/${id}/traces/${turn[0]!.traceId}$`));
  await page.getByTestId('span-tree').waitFor();

  await page.goto(server.href(`/redirects/spans/${turn[2]!.spanId}`));
  await page.waitForURL(new RegExp(`/projects/${id}/traces/${turn[0]!.traceId}\\?span=${turn[2]!.spanId}$`));
  await page.getByTestId('span-name').getByText('ChatCompletion').waitFor();

  await page.goto(server.href('/redirects/sessions/sess-beta'));
  await page.waitForURL(new RegExp(`/projects/${id}/sessions/[^/]+$`));
  assert.is(await text(page.getByTestId('session-id')), 'sess-beta');

  await page.goto(server.href(`/redirects/traces/${'0'.repeat(32)}`));
  await page.getByText(`No trace ${'0'.repeat(32)} was found.`).waitFor();
  await page.context().close();
});

test('span content that carries <img onerror>, <script> and javascript: links runs no script', async ({ server, browser, hostile }) => {
  const { page, problems } = await openPage(browser);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const id = await projectId(server, 'sandbox');
  await page.goto(server.href(`/projects/${id}/traces`));
  await waitForRows(page, 1);
  await traceRows(page).first().locator('td.num').first().click();
  await page.waitForURL(new RegExp(`/traces/${hostile[0]!.traceId}`));
  await page.getByTestId('span-details').waitFor();
  // The content is there, as text and as sanitised markdown ...
  await page.getByTestId('io-input').getByText('Totally normal output').waitFor();
  await page.getByTestId('chat-message').first().waitFor();
  await page.getByTestId('document').first().waitFor();
  // ... and raw, and in the attributes tree
  await page.getByTestId('io-output').getByRole('button', { name: 'Raw' }).click();
  await page
    .getByTestId('io-output')
    .getByText(/onerror/)
    .first()
    .waitFor();
  await page.getByRole('button', { name: 'Attributes' }).click();
  await page.getByTestId('attributes').waitFor();
  await page.getByRole('button', { name: 'Info' }).click();
  await page.getByTestId('io-input').waitFor();
  await page.waitForTimeout(500);

  const dom = await page.evaluate(() => ({
    pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
    handlers: document.querySelectorAll('[onerror],[onload],[onclick]').length,
    scriptLinks: [...document.querySelectorAll('a[href]')].filter((a) => /^\s*javascript:/i.test(a.getAttribute('href') ?? '')).length,
    scriptImages: [...document.querySelectorAll('img')].filter((i) => !/^(https:|data:image\/)/i.test(i.getAttribute('src') ?? 'https:'))
      .length,
    inlineScripts: [...document.querySelectorAll('script')].filter((s) => !s.src).length,
    neutralisedLinks: [...document.querySelectorAll('[data-testid="io-input"] a')].map((a) => ({
      text: a.textContent,
      href: a.getAttribute('href'),
    })),
  }));
  await screenshot(page, 'tracing-hostile-span');
  assert.is(dom.pwned, null, 'no injected script ran');
  assert.equal(dialogs, [], 'no alert opened');
  assert.is(dom.handlers, 0, 'no inline event handler in the DOM');
  assert.is(dom.scriptLinks, 0, 'no javascript: link');
  assert.is(dom.scriptImages, 0, 'images only from https: or data:image URLs');
  assert.is(dom.inlineScripts, 0, 'no inline script element');
  assert.ok(
    dom.neutralisedLinks.some((l) => l.text === 'click me' && l.href === null),
    JSON.stringify(dom.neutralisedLinks),
  );

  // And the trace can be deleted: after confirming, the project's list no longer has it
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await page.waitForURL(new RegExp(`/projects/${id}/traces$`));
  await page.getByText('No traces in this time range').waitFor();
  assert.equal(unexpectedProblems(problems), []);
  await page.context().close();
});

test.run();
