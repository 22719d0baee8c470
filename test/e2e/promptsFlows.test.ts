import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { callAs, createUser } from '../support/authClient.ts';
import { launchBrowser, openPage, screenshotLeftOpen } from './support/browser.ts';
import { signIn, unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';

/**
 * The prompt pages with authentication on: a member creates a prompt, saves a second version,
 * compares the two, and sets a tag that moves between versions; a viewer reads the same prompt
 * without any write control.
 */

type Ctx = { server: UiServer; browser: Browser };
const test = suite<Ctx>('prompt pages, auth on', {} as Ctx);

const PROMPT = 'support-answer';

test.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: true });
  ctx.browser = await launchBrowser();
  const admin = { bearer: ctx.server.adminSecret! };
  await createUser(ctx.server, admin, { email: 'mia@example.com', username: 'mia', role: 'MEMBER', password: 'mia-initial-pw-1' });
  await createUser(ctx.server, admin, { email: 'vic@example.com', username: 'vic', role: 'VIEWER', password: 'vic-initial-pw-1' });
});

test.after.each(() => screenshotLeftOpen('prompts'));

test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

const versionItem = (page: Page, n: number) => page.locator(`[data-testid=version-item][data-sequence="${n}"]`);
const tagsOf = async (page: Page, n: number) =>
  (await versionItem(page, n).getByTestId('version-tag').allTextContents()).map((t) => t.trim());

test('a member creates a prompt, adds a version, sees the diff and moves a tag', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  await signIn(page, server, 'mia@example.com', 'mia-initial-pw-1', 'mia-own-password-1');

  // Given the empty prompts page, reached from the sidebar
  await page.getByRole('link', { name: 'Prompts' }).click();
  await page.getByText('No prompts yet').waitFor();

  // When a prompt is created with a name the server refuses, its words are shown
  await page.getByRole('button', { name: 'New prompt' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel(/^Name/).fill('Not A Name');
  await dialog.getByRole('button', { name: 'Create prompt' }).click();
  await dialog.getByRole('alert').waitFor();
  assert.match((await dialog.getByRole('alert').textContent()) ?? '', /name/i);

  // And then with a good name, a template with a variable and parameters as JSON
  await dialog.getByLabel(/^Name/).fill(PROMPT);
  await dialog.getByLabel('Description', { exact: true }).fill('Answers support questions');
  await dialog.getByLabel('Content of message 1').fill('You answer questions about Loupe. <b>Be brief.</b>');
  await dialog.getByLabel('Content of message 2').fill('{{question}}');
  await dialog.getByLabel('Invocation parameters (JSON)').fill('{"temperature": 0.2}');
  await screenshot(page, 'prompts-new-dialog');
  await dialog.getByRole('button', { name: 'Create prompt' }).click();

  // Then its page shows version 1 as a chat, the markup in the template as text
  await page.waitForURL(new RegExp(`/prompts/${PROMPT}$`));
  await page.getByRole('heading', { name: 'Version 1' }).waitFor();
  const system = page.locator('[data-testid=prompt-message][data-role=system]');
  assert.is((await system.textContent())?.includes('<b>Be brief.</b>'), true, 'the template is shown as text, not HTML');
  assert.is(await system.locator('b').count(), 0);

  // When the version is edited and saved as a new one
  await page.getByRole('button', { name: 'Edit as new version' }).click();
  await dialog.getByLabel('Content of message 1').fill('You answer questions about Loupe. Cite the docs.');
  await dialog.getByLabel('Invocation parameters (JSON)').fill('{"temperature": ');
  await dialog.getByRole('button', { name: 'Save as new version' }).click();
  await dialog
    .getByRole('alert')
    .getByText(/Invocation parameters: not valid JSON/)
    .waitFor();
  await dialog.getByLabel('Invocation parameters (JSON)').fill('{"temperature": 0.5}');
  await dialog.getByLabel('Version description').fill('Cite the docs');
  await dialog.getByRole('button', { name: 'Save as new version' }).click();

  // Then version 2 is selected, newest first, and the diff shows both changes
  await page.getByRole('heading', { name: 'Version 2' }).waitFor();
  assert.equal(await page.getByTestId('version-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-sequence'))), ['2', '1']);
  const diff = page.getByTestId('version-diff');
  const added = (await diff.locator('[data-kind=added]').allTextContents()).join('\n');
  const removed = (await diff.locator('[data-kind=removed]').allTextContents()).join('\n');
  assert.match(added, /Cite the docs\./);
  assert.match(added, /"temperature": 0\.5/);
  assert.match(removed, /<b>Be brief\.<\/b>/);
  assert.match(removed, /"temperature": 0\.2/);

  // When version 2 is tagged "production"
  await page.getByRole('button', { name: 'Tag', exact: true }).click();
  await dialog.getByLabel(/^Tag name/).fill('production');
  await dialog.getByRole('button', { name: 'Set tag' }).click();
  await versionItem(page, 2).getByTestId('version-tag').waitFor();
  assert.equal(await tagsOf(page, 2), ['production']);
  assert.match((await page.getByTestId('prompt-snippet').textContent()) ?? '', /tag: "production"/);
  await screenshot(page, 'prompts-version-tagged');

  // And the same tag is set on version 1, it moves there
  await versionItem(page, 1).click();
  await page.getByRole('heading', { name: 'Version 1' }).waitFor();
  await page.getByRole('button', { name: 'Tag', exact: true }).click();
  await dialog.getByLabel(/^Tag name/).fill('production');
  await dialog.getByText('it will move to version 1').waitFor();
  await dialog.getByRole('button', { name: 'Set tag' }).click();
  await versionItem(page, 1).getByTestId('version-tag').waitFor();
  assert.equal(await tagsOf(page, 1), ['production']);
  assert.equal(await tagsOf(page, 2), []);
  await page.getByRole('button', { name: 'Python' }).click();
  assert.match(
    (await page.getByTestId('prompt-snippet').textContent()) ?? '',
    /client\.prompts\.get\(prompt_identifier="support-answer", tag="production"\)/,
  );
  await page.getByRole('link', { name: '← Prompts' }).scrollIntoViewIfNeeded();
  await screenshot(page, 'prompts-tag-moved');

  // And the list finds it by name and shows its versions
  await page.getByRole('link', { name: '← Prompts' }).click();
  await page.getByLabel('Search prompts').fill('support');
  const row = page.locator(`[data-testid=prompt-row][data-name="${PROMPT}"]`);
  await row.waitFor();
  assert.match((await row.textContent()) ?? '', /Answers support questions/);
  await page.getByLabel('Search prompts').fill('nothing-like-it');
  await page.getByText('No matching prompts').waitFor();
  await page.getByLabel('Search prompts').fill('');
  await row.waitFor();
  await screenshot(page, 'prompts-list');

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a member labels the prompt: a new label, an existing one, and takes one off', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  await signIn(page, server, 'mia@example.com', 'mia-own-password-1');
  const admin = { bearer: server.adminSecret! };
  const existing = await callAs(server, 'POST', '/graphql', {
    as: admin,
    json: { query: 'mutation { createPromptLabel(input: {name: "support", color: "#22aa55"}) { promptLabels { id } } }' },
  });
  assert.is(existing.body.errors, undefined, JSON.stringify(existing.body));
  await page.goto(server.href(`/prompts/${PROMPT}`));
  const labels = page.getByRole('region', { name: 'Labels' });
  await labels.getByText('none').waitFor();

  // A new label, created and added in one go
  await labels.getByLabel('Label to add').selectOption('new');
  await labels.getByLabel('New label name').fill('production');
  await labels.getByRole('button', { name: 'Add' }).click();
  await labels.getByTestId('prompt-label').filter({ hasText: 'production' }).waitFor();
  // A name the server refuses is shown in its words
  await labels.getByLabel('Label to add').selectOption('new');
  await labels.getByLabel('New label name').fill('Not Valid');
  await labels.getByRole('button', { name: 'Add' }).click();
  await page.getByRole('alert').filter({ hasText: /name/ }).waitFor();
  // An existing label, then one taken off
  await labels.getByLabel('Label to add').selectOption({ label: 'support' });
  await labels.getByRole('button', { name: 'Add' }).click();
  await labels.getByTestId('prompt-label').filter({ hasText: 'support' }).waitFor();
  await labels.getByRole('button', { name: 'Remove label production' }).click();
  await labels.getByTestId('prompt-label').filter({ hasText: 'production' }).waitFor({ state: 'detached' });
  await screenshot(page, 'prompts-labels');

  // The prompts list shows it and filters by it
  const listed = await callAs(server, 'POST', '/graphql', {
    as: admin,
    json: { query: `{ getPromptByName(name: "${PROMPT}") { labels { name } } }` },
  });
  assert.equal(listed.body.data.getPromptByName.labels, [{ name: 'support' }]);
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a viewer reads the prompt without any write control', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  await signIn(page, server, 'vic@example.com', 'vic-initial-pw-1', 'vic-own-password-1');
  await page.getByRole('link', { name: 'Prompts' }).click();
  await page.locator(`[data-testid=prompt-row][data-name="${PROMPT}"]`).waitFor();
  assert.is(await page.getByRole('button', { name: 'New prompt' }).count(), 0);
  // A click on the prompt's row (its version count, not the name link) opens it
  await page.locator(`[data-testid=prompt-row][data-name="${PROMPT}"] td`).nth(3).click();
  await page.getByRole('heading', { name: 'Version 2' }).waitFor();
  await page.getByTestId('version-diff').waitFor();
  for (const name of ['Edit as new version', 'Tag', 'Delete prompt', 'Edit']) {
    assert.is(await page.getByRole('button', { name, exact: true }).count(), 0, `no "${name}" for a viewer`);
  }
  assert.is(await page.getByRole('button', { name: /Remove tag/ }).count(), 0);
  await page.getByTestId('prompt-label').filter({ hasText: 'support' }).waitFor();
  assert.is(await page.getByLabel('Label to add').count(), 0, 'no label controls for a viewer');
  await screenshot(page, 'prompts-viewer');
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a member deletes the prompt after confirming', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  await signIn(page, server, 'mia@example.com', 'mia-own-password-1');
  await page.goto(server.href(`/prompts/${PROMPT}`));
  await page.getByRole('button', { name: 'Delete prompt' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await page.waitForURL(/\/prompts$/);
  await page.getByText('No prompts yet').waitFor();
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test.run();
