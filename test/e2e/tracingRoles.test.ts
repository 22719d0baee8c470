import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { createUser } from '../support/authClient.ts';
import { launchBrowser, openPage } from './support/browser.ts';
import { signIn, submitLogin, unexpectedProblems } from './support/flows.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';
import { chatTurn, exportSpans, type OtlpSpan } from './tracingFixtures.ts';

/**
 * The tracing pages with authentication on: a /redirects link followed while signed out comes
 * back to the trace after sign-in; viewers get no delete controls, members do.
 */

type Ctx = { server: UiServer; browser: Browser; turn: OtlpSpan[] };
const test = suite<Ctx>('tracing pages, auth on', {} as Ctx);

test.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: true });
  ctx.browser = await launchBrowser();
  const admin = { bearer: ctx.server.adminSecret! };
  await createUser(ctx.server, admin, { email: 'vic@example.com', username: 'vic', role: 'VIEWER', password: 'vic-initial-pw-1' });
  await createUser(ctx.server, admin, { email: 'mia@example.com', username: 'mia', role: 'MEMBER', password: 'mia-initial-pw-1' });
  ctx.turn = chatTurn({ startMs: Date.now() - 60_000, index: 1, sessionId: 'sess-roles' });
  await exportSpans(ctx.server, 'guarded', ctx.turn, { authorization: `Bearer ${ctx.server.adminSecret}` });
});

test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

test('a /redirects link opened signed out lands on the trace after sign-in; a viewer sees no delete', async ({ server, browser, turn }) => {
  const { page, problems } = await openPage(browser);
  // Given a first sign-in done (the forced password change), then a signed-out browser
  await signIn(page, server, 'vic@example.com', 'vic-initial-pw-1', 'vic-own-password-1');
  await page.context().clearCookies();
  // When a link to a span is followed, the login page asks first, then the span opens
  await page.goto(server.href(`/redirects/spans/${turn[2]!.spanId}`));
  await page.waitForURL(/\/login/);
  await submitLogin(page, 'vic@example.com', 'vic-own-password-1');
  await page.waitForURL(new RegExp(`/traces/${turn[0]!.traceId}\\?span=${turn[2]!.spanId}$`));
  await page.getByTestId('span-name').getByText('ChatCompletion').waitFor();
  // Then, as a viewer, nothing can be deleted here or on the session page
  assert.is(await page.getByRole('button', { name: 'Delete' }).count(), 0);
  await page.getByRole('link', { name: 'sess-roles' }).click();
  await page.getByTestId('session-turns').waitFor();
  assert.is(await page.getByRole('button', { name: 'Delete' }).count(), 0);
  assert.equal(unexpectedProblems(problems), []);
  await page.context().close();
});

test('a member can delete a session (with its traces)', async ({ server, browser }) => {
  const { page, problems } = await openPage(browser);
  await signIn(page, server, 'mia@example.com', 'mia-initial-pw-1', 'mia-own-password-1');
  await page.goto(server.href('/redirects/sessions/sess-roles'));
  await page.getByTestId('session-turns').waitFor();
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await page.waitForURL(/\/sessions$/);
  await page.getByText('No sessions yet').waitFor();
  await page.getByRole('link', { name: 'Traces', exact: true }).click();
  await page.getByText('No traces in this time range').waitFor();
  assert.equal(unexpectedProblems(problems), []);
  await page.context().close();
});

test.run();
