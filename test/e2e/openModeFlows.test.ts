import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { seed } from '../support/restClient.ts';
import { attrs, nanos, newTraceId, spanRecord } from '../support/spanFixtures.ts';
import { launchBrowser, openPage, screenshotLeftOpen } from './support/browser.ts';
import { unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';

/**
 * The UI with authentication off, served under a sub-path (SERVICE_HOST_ROOT_PATH=/loupe): how the
 * server serves the page (deep links, CSP, caching, the API untouched), and the projects page with
 * summaries over a time range, create, edit and delete.
 */

/** Inside the repository (test-output/ is ignored), so a script there resolves our node_modules. */
const SCRATCH = resolve(dirname(fileURLToPath(import.meta.url)), '../../test-output/scratch');

// Functions passed to page.waitForFunction run in the browser; the project's types have no DOM.
declare const document: any;
declare const getComputedStyle: any;

type Ctx = { server: UiServer; browser: Browser };
const test = suite<Ctx>('UI, auth off, under /loupe', {} as Ctx);

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/** A root LLM span with tokens, `startedAgo` ms before now, lasting `ms`. */
const llmTrace = (startedAgo: number, ms: number, status: 'OK' | 'ERROR' = 'OK') => {
  const start = ago(startedAgo);
  return spanRecord({
    traceId: newTraceId(),
    name: 'ChatCompletion',
    spanKind: 'LLM',
    status: { code: status, message: '' },
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(start, BigInt(ms) * 1_000_000n),
    attributes: attrs({
      'openinference.span.kind': 'LLM',
      'llm.token_count.prompt': 120,
      'llm.token_count.completion': 80,
      'llm.token_count.total': 200,
    }),
  });
};

test.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: false, env: { SERVICE_HOST_ROOT_PATH: '/loupe' } });
  ctx.browser = await launchBrowser();
  const hour = 3600_000;
  await seed(ctx.server, 'chatbot', [llmTrace(hour, 850), llmTrace(2 * hour, 1250, 'ERROR'), llmTrace(3 * 24 * hour, 400)]);
  await seed(ctx.server, 'rag-search', [
    llmTrace(5 * 60_000, 2300),
    llmTrace(20 * 60_000, 1900),
    llmTrace(26 * hour, 3100),
    llmTrace(30 * hour, 2700),
  ]);
  const describe = (name: string, description: string, start: string, end: string) =>
    fetch(ctx.server.href(`/v1/projects/${name}`), {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ description, gradient_start_color: start, gradient_end_color: end }),
    });
  await describe('chatbot', 'Customer support assistant (GPT-4o)', '#8b6dff', '#2fb6d6');
  await describe('rag-search', 'Retrieval over the product docs', '#f6d365', '#fda085');
});

test.after.each(() => screenshotLeftOpen('open'));

test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

test('the server answers app paths with the page, under the root path, and leaves the API alone', async ({ server }) => {
  // Given any page of the app, opened directly (a reload or a pasted link)
  for (const path of [
    '/',
    '/projects',
    '/projects/UHJvamVjdDox/traces?range=7d',
    '/settings/secrets',
    '/login',
    '/reset-password-with-token?token=x',
  ]) {
    const page = await fetch(server.href(path));
    assert.is(page.status, 200, path);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/, path);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/, `${path}: only the app's own scripts`);
    const html = await page.text();
    assert.match(html, /<script type="module" crossorigin src="\/loupe\/assets\/index-[\w-]+\.js">/, `${path}: assets under the root path`);
    assert.not.match(html, /<script>|<script [^>]*>[^<]/, `${path}: no inline script`);
    const config = /name="loupe-config" content="([^"]*)"/.exec(html)?.[1] ?? '';
    assert.is(JSON.parse(config.replace(/&quot;/g, '"').replace(/&amp;/g, '&')).rootPath, '/loupe');
  }
  // The API keeps its own answers
  const missing = await fetch(server.href('/v1/no-such-route'));
  assert.is(missing.status, 404);
  assert.is(((await missing.json()) as { code: string }).code, 'route_not_found');
  assert.is((await fetch(server.href('/healthz'))).status, 200);
  assert.is((await fetch(server.href('/v1/projects'))).headers.get('content-type')?.startsWith('application/json'), true);
  // Outside the root path nothing is served
  assert.is((await fetch(server.href('/projects').replace('/loupe', ''))).status, 404);

  // Hashed assets are cached for good and sent compressed; nothing outside the build is reachable
  const html = await (await fetch(server.href('/'))).text();
  const script = /src="(\/loupe\/assets\/[^"]+\.js)"/.exec(html)![1]!;
  const asset = await fetch(server.href(script.replace('/loupe', '')), { headers: { 'accept-encoding': 'gzip' } });
  assert.is(asset.status, 200);
  assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
  assert.match(asset.headers.get('content-type') ?? '', /javascript/);
  assert.is((await fetch(server.href('/assets/..%2f..%2fpackage.json'))).status, 404);
  assert.is((await fetch(server.href('/assets/../../package.json'))).status, 404);
  assert.is((await fetch(server.href('/assets/nope.js'))).status, 404);
});

test('the projects page shows each project with its summary over the chosen time range', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(server.href('/'));
  await page.waitForURL(/\/loupe\/projects/);
  const chatbot = page.locator('[data-testid=project-card][data-project-name=chatbot]');
  await chatbot.waitFor();
  assert.ok(await page.locator('[data-testid=project-card][data-project-name=default]').isVisible(), 'the default project is listed');
  // Last 7 days by default: all three traces
  await chatbot.getByTestId('trace-count').getByText('3', { exact: true }).waitFor();
  assert.match((await chatbot.textContent()) ?? '', /33%/);
  // The card says which errors it counts: traces with an errored span anywhere (here the root).
  assert.is(await chatbot.getByTestId('project-error-rate').innerText(), '33%');
  assert.ok(await chatbot.getByText('Errored traces', { exact: true }).isVisible());
  // Six figures in two rows of three: no label wraps or falls under another row's label.
  const labels = await chatbot
    .locator('dl dt')
    .evaluateAll((dts: any[]) => dts.map((dt) => ({ top: dt.getBoundingClientRect().top, height: dt.getBoundingClientRect().height })));
  assert.is(labels.length, 6);
  assert.ok(
    labels.every((l) => l.height < 20),
    `one line each: ${JSON.stringify(labels)}`,
  );
  assert.is(new Set(labels.map((l) => Math.round(l.top))).size, 2, `two rows: ${JSON.stringify(labels)}`);
  // A project whose spans created it (no colours chosen) does not wear the default every such project would share.
  const swatch = (name: string) =>
    page
      .locator(`[data-testid=project-card][data-project-name=${name}]`)
      .getByTestId('project-swatch')
      .evaluate((el: any) => getComputedStyle(el).backgroundImage);
  const [defaultSwatch, chatbotSwatch] = [await swatch('default'), await swatch('chatbot')];
  assert.not.match(defaultSwatch, /rgb\(91, 219, 255\)/);
  assert.match(chatbotSwatch, /rgb\(139, 109, 255\)/, 'a chosen colour is kept');
  await screenshot(page, 'projects');

  // A narrower preset counts fewer, and the choice is in the URL (a reload keeps it)
  await page.getByLabel('Time range').selectOption('24h');
  await chatbot.getByTestId('trace-count').getByText('2', { exact: true }).waitFor();
  assert.match(page.url(), /range=24h/);
  await page.reload();
  await chatbot.getByTestId('trace-count').getByText('2', { exact: true }).waitFor();

  // A custom range: the day of the oldest trace only
  await page.getByLabel('Time range').selectOption('custom');
  const local = (ms: number) => {
    const d = new Date(Date.now() - ms);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  };
  await page.getByLabel('From').fill(local(4 * 24 * 3600_000));
  await page.getByLabel('To').fill(local(2 * 24 * 3600_000));
  await page.getByRole('button', { name: 'Apply' }).click();
  await chatbot.getByTestId('trace-count').getByText('1', { exact: true }).waitFor();
  assert.match(page.url(), /range=custom/);

  // A click on a trace's row (not its name link) opens the trace under the root path, its root span selected
  await page.goto(server.href('/projects'));
  await chatbot.getByRole('link', { name: 'chatbot' }).click();
  await page.getByTestId('trace-row').first().locator('td.num').first().click();
  await page.waitForURL(/\/loupe\/projects\/[^/]+\/traces\/[0-9a-f]{32}\?span=[0-9a-f]{16}$/);
  await page.getByTestId('span-tree').waitFor();
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('the projects page hides experiment projects until asked, and searches and sorts', async ({ server, browser }) => {
  // Given an experiment (its own project) and the Phoenix client's evaluators project
  const up = await fetch(server.href('/v1/datasets/upload?sync=true'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'qa', inputs: [{ q: 'hi' }] }),
  });
  const datasetId = ((await up.json()) as { data: { dataset_id: string } }).data.dataset_id;
  const made = await fetch(server.href(`/v1/datasets/${datasetId}/experiments`), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'baseline' }),
  });
  const experimentProject = ((await made.json()) as { data: { project_name: string } }).data.project_name;
  await seed(server, 'evaluators', [llmTrace(60_000, 100)]);

  const { page, context, problems } = await openPage(browser);
  await page.goto(server.href('/projects'));
  const cards = page.getByTestId('project-card');
  await page.locator('[data-testid=project-card][data-project-name=chatbot]').waitFor();
  const names = () => cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-project-name')));
  assert.not.ok((await names()).includes(experimentProject), 'the experiment project is hidden');
  assert.not.ok((await names()).includes('evaluators'), 'so is the evaluators project');

  // The toggle shows them, and the URL keeps it
  await page.getByLabel('Show experiment projects').check();
  await page.locator(`[data-testid=project-card][data-project-name="${experimentProject}"]`).waitFor();
  assert.ok((await names()).includes('evaluators'));
  assert.match(page.url(), /experiments=shown/);
  await page.getByLabel('Show experiment projects').uncheck();
  await page.locator(`[data-testid=project-card][data-project-name="${experimentProject}"]`).waitFor({ state: 'detached' });

  // Sorting by name orders the cards; by traces puts the busiest first
  await page.getByLabel('Sort projects').selectOption('name');
  await page.waitForURL(/sort=name/);
  const sorted = await names();
  assert.equal(
    sorted,
    [...sorted].sort((a, b) => a!.localeCompare(b!, undefined, { sensitivity: 'base' })),
  );
  await page.getByLabel('Sort projects').selectOption('traces');
  await page.waitForFunction(
    () => document.querySelector('[data-testid=project-card]')?.getAttribute('data-project-name') === 'rag-search',
  );

  // Search keeps the projects whose name contains the words, ignoring case, and survives a reload
  await page.getByLabel('Search projects').fill('RAG');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=project-card]').length === 1);
  assert.equal(await names(), ['rag-search']);
  await screenshot(page, 'projects-search');
  await page.reload();
  await page.locator('[data-testid=project-card][data-project-name=rag-search]').waitFor();
  assert.is(await cards.count(), 1);
  assert.is(await page.getByLabel('Search projects').inputValue(), 'RAG');
  await page.getByLabel('Search projects').fill('nothing-like-this');
  await page.getByText('No project matches “nothing-like-this”').waitFor();
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('an empty project shows its endpoints and a register snippet that, run as shown, sends a trace there', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(server.href('/projects'));
  await page.locator('[data-testid=project-card][data-project-name=default]').getByRole('link', { name: 'default' }).click();
  const guide = page.getByTestId('send-traces-guide');
  await guide.waitFor();
  // This server's own endpoints, under its root path, and the gRPC port
  assert.is(await guide.getByTestId('otlp-http-endpoint').textContent(), `${server.baseUrl}/v1/traces`);
  assert.is(await guide.getByTestId('otlp-grpc-endpoint').textContent(), `127.0.0.1:${server.grpcPort}`);
  assert.is(await guide.getByTestId('send-traces-auth').count(), 0, 'no key needed with auth off');
  await guide.getByRole('tab', { name: 'Python' }).click();
  const python = (await guide.getByTestId('send-traces-snippet').textContent()) ?? '';
  assert.match(python, /project_name="default"/);
  assert.ok(python.includes(`endpoint="${server.baseUrl}/v1/traces"`), python);
  await guide.getByRole('tab', { name: 'TypeScript' }).click();
  await screenshot(page, 'empty-project-guide');

  // When the TypeScript snippet runs as shown (after its install line), with one span made
  const snippet = ((await guide.getByTestId('send-traces-snippet').textContent()) ?? '').replace(/^npm install .*\n/, '');
  const dir = join(SCRATCH, 'register-snippet');
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'send.mjs');
  await writeFile(
    file,
    `${snippet}\nprovider.getTracer('guide').startSpan('from-the-snippet').end();\nawait provider.forceFlush();\nawait provider.shutdown();\n`,
  );
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, [file], { timeout: 60_000 }, (error, _out, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(),
    ),
  );
  // Then the project lists its trace (the export is acknowledged before it is projected: the
  // page is reloaded until the read model shows it, as a person would)
  const row = page.getByTestId('trace-row').filter({ hasText: 'from-the-snippet' });
  for (let attempt = 0; ; attempt++) {
    await page.reload();
    try {
      await row.waitFor({ timeout: 3_000 });
      break;
    } catch (error) {
      if (attempt >= 15) throw error;
    }
  }
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test("the pages follow the system's dark setting, and a theme chosen in the sidebar sticks", async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(server.href('/projects'));
  await page.locator('[data-testid=project-card][data-project-name=chatbot]').waitFor();
  const shade = () =>
    page.evaluate(() => {
      const [r, g, b] = getComputedStyle(document.body).backgroundColor.match(/\d+/g)!.map(Number);
      return { theme: document.documentElement.dataset.theme, lightness: Math.round((r! + g! + b!) / 3) };
    });
  // The system says dark: the page is dark
  const dark = await shade();
  assert.is(dark.theme, 'dark');
  assert.ok(dark.lightness < 40, `dark background: ${dark.lightness}`);
  await screenshot(page, 'projects-dark');
  await page.locator('[data-testid=project-card][data-project-name=chatbot]').getByRole('link', { name: 'chatbot' }).click();
  await page.getByTestId('trace-row').first().locator('td.num').first().click();
  await page.getByTestId('span-tree').waitFor();
  await screenshot(page, 'trace-dark');

  // Light chosen in the sidebar wins over the system, and survives a reload
  await page.getByLabel('Theme').selectOption('light');
  assert.ok((await shade()).lightness > 200);
  await page.reload();
  await page.getByTestId('span-tree').waitFor();
  assert.equal(await shade(), { theme: 'light', lightness: (await shade()).lightness });
  assert.is(await page.getByLabel('Theme').inputValue(), 'light');
  // Back to the system's setting: dark again, and it follows the system when that changes
  await page.getByLabel('Theme').selectOption('system');
  assert.is((await shade()).theme, 'dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('projects are created, edited (description and colour) and deleted from the page', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(server.href('/projects'));
  await page.getByRole('button', { name: 'New project' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name').fill('support-bot');
  await dialog.getByLabel('Description').fill('Answers support tickets');
  await dialog.getByRole('button', { name: 'Gradient #ff9a8b to #ff6a88' }).click();
  await screenshot(page, 'project-create');
  await dialog.getByRole('button', { name: 'Create project' }).click();
  const card = page.locator('[data-testid=project-card][data-project-name=support-bot]');
  await card.getByText('Answers support tickets').waitFor();

  // A name already taken is refused with the server's message
  await page.getByRole('button', { name: 'New project' }).click();
  await dialog.getByLabel('Name').fill('support-bot');
  await dialog.getByRole('button', { name: 'Create project' }).click();
  await dialog.getByRole('alert').waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await card.getByRole('button', { name: 'Edit support-bot' }).click();
  await dialog.getByLabel('Description').fill('Answers tickets, politely');
  await dialog.getByRole('button', { name: 'Gradient #43e97b to #38f9d7' }).click();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await card.getByText('Answers tickets, politely').waitFor();
  const stored = (await (
    await fetch(server.href('/graphql'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ getProjectByName(name: "support-bot") { gradientStartColor gradientEndColor } }' }),
    })
  ).json()) as { data: { getProjectByName: unknown } };
  assert.equal(stored.data.getProjectByName, { gradientStartColor: '#43e97b', gradientEndColor: '#38f9d7' });

  await card.getByRole('button', { name: 'Delete support-bot' }).click();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await card.waitFor({ state: 'detached' });
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('with auth off, settings hold the secrets only, and a deep link survives a reload', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(server.href('/settings'));
  await page.getByRole('heading', { name: 'Secrets', exact: true }).waitFor();
  assert.is(await page.getByRole('link', { name: 'Users' }).count(), 0);
  assert.is(await page.getByRole('link', { name: 'API keys' }).count(), 0);
  await page.getByRole('button', { name: 'Add secret' }).click();
  await page.getByRole('dialog').getByLabel('Key').fill('ANTHROPIC_API_KEY');
  await page.getByRole('dialog').getByLabel('Value', { exact: true }).fill('sk-ant-123');
  await page.getByRole('dialog').getByRole('button', { name: 'Save secret' }).click();
  const row = page.locator('[data-testid=secret-row][data-key=ANTHROPIC_API_KEY]');
  await row.waitFor();
  assert.not.ok((await page.content()).includes('sk-ant-123'));
  await page.reload();
  await row.waitFor();
  assert.match(page.url(), /\/loupe\/settings$/);

  // Keys exist only with auth on: their tab says so instead of showing another
  await page.goto(server.href('/settings/keys'));
  await page.getByRole('heading', { name: 'No settings tab “keys”' }).waitFor();
  await page.getByText('SERVICE_ENABLE_AUTH=true').waitFor();

  // An unknown app path shows the app's not-found page
  await page.goto(server.href('/projects/x/y/z'));
  await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  // So does any unknown path a browser opens (a 404 with the app, not the API's JSON) ...
  const response = await page.goto(server.href('/nope/nothing'));
  assert.is(response?.status(), 404);
  await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  await screenshot(page, 'not-found');
  // ... while an API client still gets the JSON 404
  const api = await fetch(server.href('/nope/nothing'));
  assert.is(api.status, 404);
  assert.is(((await api.json()) as { code: string }).code, 'route_not_found');
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test.run();
