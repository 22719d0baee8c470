import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { eventually, seed } from '../support/restClient.ts';
import { newTraceId, spanRecord } from '../support/spanFixtures.ts';
import { launchBrowser, openPage } from './support/browser.ts';
import { unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';

/**
 * Settings › Retention and a project's settings in a real browser: a policy made, changed, given to a
 * project (which it trims at once), deleted; the same dialog restricts the project and grants a role.
 */
type Ctx = { server: UiServer; browser: Browser };
const test = suite<Ctx>('trace retention pages', {} as Ctx);

test.before(async (ctx) => {
  ctx.server = await startUiServer({ auth: false, env: { SERVICE_DEFAULT_RETENTION_POLICY_DAYS: '90' } });
  ctx.browser = await launchBrowser();
});
test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

const DAY = 24 * 3600 * 1000;
const startedAt = (ms: number) => {
  const ns = (BigInt(ms) * 1_000_000n).toString();
  return { startTimeUnixNano: ns, endTimeUnixNano: ns };
};

test('an admin creates a policy, edits it, gives it to a project (its ten-day-old trace goes at once, the run shows), and deletes it', async ({
  server,
  browser,
}) => {
  const old = spanRecord({ traceId: newTraceId(), name: 'old-turn', ...startedAt(Date.now() - 10 * DAY) });
  const recent = spanRecord({ traceId: newTraceId(), name: 'recent-turn', ...startedAt(Date.now() - 60_000) });
  await seed(server, 'support-bot', [old, recent]);
  const auditor = await fetch(server.href('/v1/users'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      user: { email: 'auditor@example.com', username: 'auditor', role: 'MEMBER', auth_method: 'LOCAL', password: 'auditor-pw' },
      send_welcome_email: false,
    }),
  });
  assert.is(auditor.status, 201, await auditor.text());

  const { page, problems } = await openPage(browser);
  await page.goto(server.href('/settings/retention'));
  const row = (name: string) => page.getByTestId('retention-row').filter({ has: page.getByText(name, { exact: true }) });
  await row('Default').waitFor();
  assert.ok(((await row('Default').textContent()) ?? '').includes('90 days'));

  await page.getByRole('button', { name: 'New policy' }).click();
  await page.locator('input[name="policy-name"]').fill('One week');
  await page.locator('input[name="policy-max-days"]').fill('7');
  await page.getByRole('button', { name: 'Create policy' }).click();
  await row('One week').waitFor();
  assert.ok(((await row('One week').textContent()) ?? '').includes('7 days'));

  await row('One week').getByRole('button', { name: 'Edit One week' }).click();
  await page.locator('input[name="policy-max-traces"]').fill('1000');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('7 days, at most the newest 1,000 traces').waitFor();

  // A negative age is refused with the server's message naming the field; the dialog stays open.
  await page.getByRole('button', { name: 'New policy' }).click();
  await page.locator('input[name="policy-name"]').fill('Broken');
  await page.locator('input[name="policy-max-days"]').fill('-1');
  await page.getByRole('button', { name: 'Create policy' }).click();
  await page.getByRole('dialog').getByText('body.max_days').waitFor();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

  // The project's settings: choose the policy.
  await page.goto(server.href('/projects'));
  await page.getByRole('button', { name: 'Edit support-bot' }).click();
  const select = page.locator('select[name="retention-policy"]');
  // Enabled once the policies and the project's current one are loaded.
  await page.locator('select[name="retention-policy"]:not([disabled])').waitFor();
  await select.selectOption({ label: 'One week (7 days, at most the newest 1,000 traces)' });
  // Issue 38: the same dialog restricts the project and lists its grantees; a grant applies at once.
  await page.locator('input[name="restricted"]').check();
  await page.locator('select[name="grantee"]').selectOption({ label: 'auditor (auditor@example.com)' });
  await page.locator('select[name="grantee-role"]').selectOption('ANNOTATOR');
  await page.getByRole('dialog').getByRole('button', { name: 'Grant' }).click();
  await page.getByRole('dialog').locator('.grants li').filter({ hasText: 'auditor' }).filter({ hasText: 'ANNOTATOR' }).waitFor();
  await screenshot(page, 'project-retention');
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
  await page.getByText('Project saved').waitFor();
  const saved = (await (await fetch(server.href('/v1/projects/support-bot'))).json()) as { data: { restricted: boolean } };
  assert.is(saved.data.restricted, true);
  const grants = (await (await fetch(server.href('/v1/projects/support-bot/grants'))).json()) as {
    data: { username: string; role: string }[];
  };
  assert.equal(
    grants.data.map((g) => `${g.username}:${g.role}`),
    ['auditor:ANNOTATOR'],
  );

  const spans = await eventually(
    async () =>
      ((await (await fetch(server.href('/v1/projects/support-bot/spans'))).json()) as { data: { name: string }[] }).data.map((s) => s.name),
    (names) => names.length === 1,
  );
  assert.equal(spans, ['recent-turn']);

  await page.goto(server.href('/settings/retention'));
  await eventually(
    async () => {
      await page.reload();
      await row('One week').waitFor();
      return (await row('One week').textContent()) ?? '';
    },
    (text) => text.includes('1 trace expired') && text.includes('removed 1 span,'),
  );
  assert.ok(((await row('One week').textContent()) ?? '').includes('support-bot'));
  await screenshot(page, 'settings-retention');

  await row('One week').getByRole('button', { name: 'Delete One week' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await page.getByText('No named policies').waitFor();
  const project = (await (await fetch(server.href('/v1/projects/support-bot/trace_retention_policy'))).json()) as {
    data: { policy_id: null };
  };
  assert.is(project.data.policy_id, null);
  assert.equal(unexpectedProblems(problems), []);
});

test.run();
