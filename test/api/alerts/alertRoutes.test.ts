import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AlertRule } from '../../../domain/alerts/alertRule.ts';
import { alertStream } from '../../../domain/alerts/alertStream.ts';
import { authEnv, callAs, createUser, login, type Credentials } from '../../support/authClient.ts';
import { httpSpec } from '../../support/httpSpec.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { wholeLog } from '../../support/wholeLog.ts';

type Ctx = { server: TestServer; admin: Credentials; member: Credentials; viewer: Credentials };
const test = suite<Ctx>('alert rules over REST', {} as Ctx);
test.before(async (ctx) => {
  const env = authEnv({ SERVICE_ALERTS_EVALUATION_INTERVAL_SECONDS: '30' });
  ctx.server = await startTestServer({ env });
  ctx.admin = { bearer: env.SERVICE_ADMIN_SECRET };
  await createUser(ctx.server, ctx.admin, { email: 'mia@example.com', username: 'mia', role: 'MEMBER', password: 'mia-pw-123' });
  await createUser(ctx.server, ctx.admin, { email: 'vic@example.com', username: 'vic', role: 'VIEWER', password: 'vic-pw-123' });
  ctx.member = await login(ctx.server, 'mia@example.com', 'mia-pw-123');
  ctx.viewer = await login(ctx.server, 'vic@example.com', 'vic-pw-123');
  for (const name of ['shop', 'other']) {
    const project = await callAs(ctx.server, 'POST', '/v1/projects', { as: ctx.admin, json: { name } });
    assert.is(project.status, 200, JSON.stringify(project.body));
  }
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const bearer = (c: Credentials) => ({ authorization: `Bearer ${c.bearer}` });

const SECRET = 'whsec-alpha-0123456789-do-not-leak';
/** A Slack incoming webhook's path is its credential: it must show nowhere but in the call to Slack. */
const SLACK_PATH = '/services/T0/B0/slack-token-do-not-leak';
const SLACK_URL = `https://hooks.slack.com${SLACK_PATH}`;
const SLACK_SHOWN = { type: 'slack', url_set: true, host: 'hooks.slack.com' };
const leaks = (value: unknown): boolean => {
  const text = JSON.stringify(value);
  return text.includes(SECRET) || text.includes('slack-token-do-not-leak');
};
const errorRule = {
  name: 'Errors up',
  metric: 'error_rate',
  window_seconds: 20,
  evaluation_interval_seconds: 5,
  condition: { op: '>', threshold: 0.2 },
  destinations: [
    { type: 'webhook', url: 'https://hooks.example.com/loupe', secret: SECRET },
    { type: 'slack', url: SLACK_URL },
  ],
};

test('a rule is created: 201 with the rule (the secret and the Slack URL only said to be set), one AlertRuleCreated with both sealed', async (ctx) => {
  const outcome = await httpSpec(ctx.server)
    .given()
    .when('POST', '/v1/projects/shop/alerts', { body: errorRule, headers: bearer(ctx.admin) })
    .thenOutcome();
  assert.is(outcome.status, 201, JSON.stringify(outcome.body));
  const rule = (outcome.body as { data: Record<string, unknown> }).data;
  assert.equal(
    {
      ...rule,
      id: typeof rule.id,
      project_id: typeof rule.project_id,
      state_since: typeof rule.state_since,
      created_at: typeof rule.created_at,
      updated_at: typeof rule.updated_at,
    },
    {
      id: 'string',
      project_id: 'string',
      name: 'Errors up',
      metric: 'error_rate',
      annotation_name: null,
      annotation_label: null,
      filter: '',
      window_seconds: 20,
      evaluation_interval_seconds: 5,
      condition: { op: '>', threshold: 0.2 },
      no_data: 'OK',
      destinations: [{ type: 'webhook', url: 'https://hooks.example.com/loupe', secret_set: true }, SLACK_SHOWN],
      state: 'NO_DATA',
      state_since: 'string',
      last_value: null,
      last_baseline: null,
      last_evaluated_at: null,
      created_at: 'string',
      updated_at: 'string',
    },
  );
  assert.equal(
    outcome.events.map((e) => e.type),
    ['AlertRuleCreated'],
  );
  assert.not.ok(leaks(outcome.body), 'the answer holds a credential');
  assert.not.ok(leaks((await wholeLog(ctx.server.store)).map((e) => e.data)), 'a credential is in the log in plaintext');
  assert.not.ok(leaks(await ctx.server.pool.anyFirst(sql.unsafe`SELECT rule FROM alert_rules`)), 'a credential is in a row in plaintext');
  assert.not.ok(
    ctx.server.logLines.some((l) => leaks(l)),
    'a credential is in a log line',
  );
  const audit = await callAs(ctx.server, 'GET', '/v1/audit/events', { as: ctx.admin });
  assert.not.ok(leaks(audit.body), 'a credential is in the audit trail');
  assert.ok(JSON.stringify(audit.body).includes('Alert rule \\"Errors up\\" created'), JSON.stringify(audit.body).slice(0, 500));
});

test('the list and a rule are read by a viewer; a viewer gets 403 on every write', async (ctx) => {
  const created = await callAs(ctx.server, 'POST', '/v1/projects/shop/alerts', {
    as: ctx.admin,
    json: { ...errorRule, name: 'Viewer sees' },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.id as string;
  const list = await callAs(ctx.server, 'GET', '/v1/projects/shop/alerts', { as: ctx.viewer });
  assert.is(list.status, 200);
  assert.ok(list.body.data.some((r: { id: string }) => r.id === id));
  assert.not.ok(leaks(list.body));
  const one = await callAs(ctx.server, 'GET', `/v1/projects/shop/alerts/${id}`, { as: ctx.viewer });
  assert.is(one.status, 200);
  assert.equal(one.body.data.destinations[1], SLACK_SHOWN);
  assert.not.ok(leaks(one.body));
  assert.is((await callAs(ctx.server, 'POST', '/v1/projects/shop/alerts', { as: ctx.viewer, json: errorRule })).status, 403);
  assert.is((await callAs(ctx.server, 'PATCH', `/v1/projects/shop/alerts/${id}`, { as: ctx.viewer, json: { name: 'x' } })).status, 403);
  assert.is((await callAs(ctx.server, 'DELETE', `/v1/projects/shop/alerts/${id}`, { as: ctx.viewer })).status, 403);
  // Another project's path does not reach it.
  assert.is((await callAs(ctx.server, 'GET', `/v1/projects/other/alerts/${id}`, { as: ctx.viewer })).status, 404);
});

test('PATCH keeps what it leaves out (the webhook keeps its sealed secret for its URL); DELETE removes the rule', async (ctx) => {
  const created = await callAs(ctx.server, 'POST', '/v1/projects/shop/alerts', {
    as: ctx.member,
    json: { ...errorRule, name: 'To change' },
  });
  const id = created.body.data.id as string;
  const patched = await callAs(ctx.server, 'PATCH', `/v1/projects/shop/alerts/${id}`, {
    as: ctx.member,
    json: { window_seconds: 60, destinations: [{ type: 'webhook', url: 'https://hooks.example.com/loupe' }] },
  });
  assert.is(patched.status, 200, JSON.stringify(patched.body));
  assert.equal(
    [patched.body.data.name, patched.body.data.window_seconds, patched.body.data.destinations],
    ['To change', 60, [{ type: 'webhook', url: 'https://hooks.example.com/loupe', secret_set: true }]],
  );
  const newUrl = await callAs(ctx.server, 'PATCH', `/v1/projects/shop/alerts/${id}`, {
    as: ctx.member,
    json: { destinations: [{ type: 'webhook', url: 'https://elsewhere.example.com/' }] },
  });
  assert.is(newUrl.status, 422);
  assert.match(newUrl.body.detail, /^body\.destinations\.0\.secret: /);
  assert.is((await callAs(ctx.server, 'DELETE', `/v1/projects/shop/alerts/${id}`, { as: ctx.member })).status, 204);
  assert.is((await callAs(ctx.server, 'GET', `/v1/projects/shop/alerts/${id}`, { as: ctx.member })).status, 404);
});

/** The Slack destination of each AlertRuleCreated/AlertRuleChanged of one rule, as the log holds it. */
const slackInLog = async (ctx: Ctx, alertId: string) =>
  (await wholeLog(ctx.server.store))
    .filter((e) => (e.type === 'AlertRuleCreated' || e.type === 'AlertRuleChanged') && (e.data as { alertId: string }).alertId === alertId)
    .map((e) => (e.data as { rule: AlertRule }).rule.destinations.find((d) => d.type === 'slack'));

test('PATCH keeps the Slack URL it does not send (a rule read and sent back, or destinations left out); a new Slack destination must bring one', async (ctx) => {
  const created = await callAs(ctx.server, 'POST', '/v1/projects/shop/alerts', {
    as: ctx.member,
    json: { ...errorRule, name: 'Slack kept' },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.id as string;
  const asRead = created.body.data.destinations;
  const sentBack = await callAs(ctx.server, 'PATCH', `/v1/projects/shop/alerts/${id}`, {
    as: ctx.member,
    json: { window_seconds: 60, destinations: asRead },
  });
  assert.is(sentBack.status, 200, JSON.stringify(sentBack.body));
  assert.equal(sentBack.body.data.destinations, asRead);
  const renamed = await callAs(ctx.server, 'PATCH', `/v1/projects/shop/alerts/${id}`, { as: ctx.member, json: { name: 'Slack kept too' } });
  assert.is(renamed.status, 200, JSON.stringify(renamed.body));
  assert.equal(renamed.body.data.destinations[1], SLACK_SHOWN);
  const sealed = await slackInLog(ctx, id);
  assert.is(sealed.length, 3);
  assert.ok(sealed[0] !== undefined && 'sealedUrl' in sealed[0], JSON.stringify(sealed[0]));
  assert.equal(sealed[1], sealed[0], 'the PATCH sent back as read kept the sealed URL');
  assert.equal(sealed[2], sealed[0], 'the PATCH without destinations kept the sealed URL');

  const moved = await callAs(ctx.server, 'PATCH', `/v1/projects/shop/alerts/${id}`, {
    as: ctx.member,
    json: { destinations: [{ type: 'slack', url: 'https://hooks.slack.example.com/services/T1/B1/slack-token-do-not-leak' }] },
  });
  assert.is(moved.status, 200, JSON.stringify(moved.body));
  assert.equal(moved.body.data.destinations, [{ type: 'slack', url_set: true, host: 'hooks.slack.example.com' }]);
  const second = await callAs(ctx.server, 'PATCH', `/v1/projects/shop/alerts/${id}`, {
    as: ctx.member,
    json: { destinations: [{ type: 'slack' }, { type: 'slack' }] },
  });
  assert.is(second.status, 422, JSON.stringify(second.body));
  assert.match(second.body.detail, /^body\.destinations\.1\.url: is required/);
  const inward = await callAs(ctx.server, 'PATCH', `/v1/projects/shop/alerts/${id}`, {
    as: ctx.member,
    json: { destinations: [{ type: 'slack', url: 'http://10.0.0.7/services/x' }] },
  });
  assert.is(inward.status, 422);
  assert.match(inward.body.detail, /^body\.destinations\.0\.url: is not allowed: it is a loopback/);
  assert.not.ok(leaks((await wholeLog(ctx.server.store)).map((e) => e.data)), 'a credential is in the log in plaintext');
});

test('a rule that names no interval is evaluated every SERVICE_ALERTS_EVALUATION_INTERVAL_SECONDS', async (ctx) => {
  const { evaluation_interval_seconds: _, ...rule } = errorRule;
  const created = await callAs(ctx.server, 'POST', '/v1/projects/shop/alerts', { as: ctx.member, json: rule });
  assert.is(created.status, 201, JSON.stringify(created.body));
  assert.is(created.body.data.evaluation_interval_seconds, 30);
});

const refusals: [string, Record<string, unknown>, RegExp][] = [
  ['an unknown metric', { metric: 'vibes' }, /^body\.metric: must be one of/],
  ['a zero window', { window_seconds: 0 }, /^body\.window_seconds: must be at least 10/],
  ['a window under 10 s', { window_seconds: 9 }, /^body\.window_seconds: must be at least 10/],
  ['an interval under 5 s', { evaluation_interval_seconds: 4 }, /^body\.evaluation_interval_seconds: must be at least 5/],
  ['a threshold missing', { condition: { op: '>' } }, /^body\.condition\.threshold: is required/],
  ['no condition', { condition: undefined }, /^body\.condition: is required/],
  ['annotation_score without a name', { metric: 'annotation_score' }, /^body\.annotation_name: is required/],
  [
    'a file: URL',
    { destinations: [{ type: 'slack', url: 'file:///etc/passwd' }] },
    /^body\.destinations\.0\.url: is not allowed: it is not an http/,
  ],
  [
    'a loopback URL',
    { destinations: [{ type: 'slack', url: 'http://127.0.0.1:8080/' }] },
    /^body\.destinations\.0\.url: is not allowed: it is a loopback/,
  ],
  [
    'a metadata URL',
    { destinations: [{ type: 'slack', url: 'http://169.254.169.254/latest' }] },
    /^body\.destinations\.0\.url: is not allowed: it is a link-local or cloud metadata address\. An operator can allow it with SERVICE_ALERTS_ALLOWED_URLS\.$/,
  ],
  [
    'a loopback spelled as a number',
    { destinations: [{ type: 'slack', url: 'http://2130706433:8080/' }] },
    /^body\.destinations\.0\.url: is not allowed: it is a loopback/,
  ],
  [
    'a loopback as IPv4-mapped IPv6',
    { destinations: [{ type: 'slack', url: 'http://[::ffff:127.0.0.1]/' }] },
    /^body\.destinations\.0\.url: is not allowed: it is a loopback/,
  ],
  [
    'a private network address',
    { destinations: [{ type: 'slack', url: 'https://10.1.2.3/hook' }] },
    /^body\.destinations\.0\.url: is not allowed: it is a loopback/,
  ],
  [
    'a private URL by name',
    { destinations: [{ type: 'slack', url: 'http://localhost/' }] },
    /^body\.destinations\.0\.url: is not allowed: it is a loopback/,
  ],
  ['a Slack destination without its URL', { destinations: [{ type: 'slack' }] }, /^body\.destinations\.0\.url: is required/],
  [
    'a webhook without a secret',
    { destinations: [{ type: 'webhook', url: 'https://a.example.com/' }] },
    /^body\.destinations\.0\.secret: /,
  ],
  ['a filter that does not parse', { filter: 'span_kind ==' }, /^body\.filter: /],
  [
    'a regression without a direction',
    { condition: { baseline_window_seconds: 60, change_percent: 100 } },
    /^body\.condition\.direction: /,
  ],
  ['an unknown field', { severity: 'high' }, /^body\.severity: is not a field/],
];
for (const [what, change, detail] of refusals) {
  test(`${what} is refused with 422 naming the field, and nothing is appended`, async (ctx) => {
    await httpSpec(ctx.server)
      .given()
      .when('POST', '/v1/projects/shop/alerts', { body: { ...errorRule, ...change }, headers: bearer(ctx.admin) })
      .then({ status: 422, body: (body: { detail: string }) => assert.match(body.detail, detail), events: [] });
  });
}

test('GraphQL: a project lists its rules for a viewer; a member creates, patches and deletes one; a viewer may not', async (ctx) => {
  const gql = (as: Credentials, query: string, variables: Record<string, unknown> = {}) =>
    callAs(ctx.server, 'POST', '/graphql', { as, json: { query, variables } });
  const projects = await callAs(ctx.server, 'GET', '/v1/projects', { as: ctx.viewer });
  const shop = projects.body.data.find((p: { name: string }) => p.name === 'shop').id as string;
  const create = `mutation($p: ID!, $r: String!) { createAlertRule(projectId: $p, rule: $r) { id name state metric condition destinations { type host url urlSet secretSet } } }`;
  const refused = await gql(ctx.viewer, create, { p: shop, r: JSON.stringify(errorRule) });
  assert.is(refused.body.errors?.[0]?.extensions?.status, 403, JSON.stringify(refused.body));
  const made = await gql(ctx.member, create, { p: shop, r: JSON.stringify({ ...errorRule, name: 'From GraphQL' }) });
  assert.is(made.body.errors, undefined, JSON.stringify(made.body.errors));
  const rule = made.body.data.createAlertRule;
  assert.equal(
    [rule.name, rule.state, rule.metric, JSON.parse(rule.condition), rule.destinations],
    [
      'From GraphQL',
      'NO_DATA',
      'error_rate',
      { op: '>', threshold: 0.2 },
      [
        { type: 'webhook', host: 'hooks.example.com', url: 'https://hooks.example.com/loupe', urlSet: true, secretSet: true },
        { type: 'slack', host: 'hooks.slack.com', url: null, urlSet: true, secretSet: false },
      ],
    ],
  );
  assert.not.ok(leaks(made.body));
  const bad = await gql(ctx.member, create, { p: shop, r: JSON.stringify({ ...errorRule, window_seconds: 0 }) });
  assert.match(bad.body.errors?.[0]?.message ?? '', /window_seconds: must be at least 10/);
  const listed = await gql(
    ctx.viewer,
    `query($p: ID!) { node(id: $p) { ... on Project { alertRules { id name lastValue lastEvaluatedAt destinations { type host url } } } } }`,
    { p: shop },
  );
  assert.is(listed.body.errors, undefined, JSON.stringify(listed.body.errors));
  assert.ok(listed.body.data.node.alertRules.some((r: { id: string }) => r.id === rule.id));
  assert.not.ok(leaks(listed.body));
  const patch = `mutation($id: ID!, $r: String!) { patchAlertRule(id: $id, rule: $r) { id name windowSeconds metric destinations { type urlSet secretSet } } }`;
  const notAllowed = await gql(ctx.viewer, patch, { id: rule.id, r: JSON.stringify({ name: 'Renamed' }) });
  assert.is(notAllowed.body.errors?.[0]?.extensions?.status, 403, JSON.stringify(notAllowed.body));
  const patched = await gql(ctx.member, patch, { id: rule.id, r: JSON.stringify({ name: 'Renamed', window_seconds: 60 }) });
  assert.is(patched.body.errors, undefined, JSON.stringify(patched.body.errors));
  // The fields not given keep their value, the sealed credentials included.
  assert.equal(patched.body.data.patchAlertRule, {
    id: rule.id,
    name: 'Renamed',
    windowSeconds: 60,
    metric: 'error_rate',
    destinations: [
      { type: 'webhook', urlSet: true, secretSet: true },
      { type: 'slack', urlSet: true, secretSet: false },
    ],
  });
  const badPatch = await gql(ctx.member, patch, { id: rule.id, r: JSON.stringify({ window_seconds: 0 }) });
  assert.match(badPatch.body.errors?.[0]?.message ?? '', /window_seconds: must be at least 10/);
  const missing = await gql(ctx.member, patch, { id: 'no-such-rule', r: '{}' });
  assert.is(missing.body.errors?.[0]?.extensions?.status, 404, JSON.stringify(missing.body));
  assert.not.ok(leaks(patched.body));
  const deleted = await gql(ctx.member, `mutation($id: ID!) { deleteAlertRule(id: $id) { deletedIds } }`, { id: rule.id });
  assert.equal(deleted.body.data?.deleteAlertRule?.deletedIds, [rule.id], JSON.stringify(deleted.body));
});

test('a rule from before Slack URLs were sealed (its URL in plaintext in the log) shows only its host, and its next change seals it', async (ctx) => {
  const projectId = String(await ctx.server.pool.oneFirst(sql.unsafe`SELECT project_id::text FROM projects WHERE name = 'shop'`));
  const alertId = randomUUID();
  const oldPath = '/services/T9/B9/old-token-in-the-log';
  const rule: AlertRule = {
    name: 'From an old log',
    metric: 'error_rate',
    annotationName: null,
    annotationLabel: null,
    filter: '',
    windowSeconds: 20,
    evaluationIntervalSeconds: 5,
    condition: { kind: 'threshold', op: '>', threshold: 0.2 },
    noData: 'OK',
    destinations: [{ type: 'slack', url: `https://hooks.slack.com${oldPath}` }],
  };
  const metadata = { actor: 'system', requestId: null, time: new Date().toISOString(), causation: 'test' };
  await ctx.server.store.appendToStream(
    alertStream(alertId),
    [{ type: 'AlertRuleCreated', data: { alertId, projectId, rule }, metadata }],
    'no_stream',
  );
  await ctx.server.runner.waitFor(await ctx.server.store.headPosition(), 20_000);
  const read = await callAs(ctx.server, 'GET', `/v1/projects/shop/alerts/${alertId}`, { as: ctx.viewer });
  assert.is(read.status, 200, JSON.stringify(read.body));
  assert.equal(read.body.data.destinations, [SLACK_SHOWN]);
  assert.not.ok(JSON.stringify(read.body).includes(oldPath));
  const renamed = await callAs(ctx.server, 'PATCH', `/v1/projects/shop/alerts/${alertId}`, { as: ctx.member, json: { name: 'Renamed' } });
  assert.is(renamed.status, 200, JSON.stringify(renamed.body));
  assert.equal(renamed.body.data.destinations, [SLACK_SHOWN]);
  const [, changed] = await slackInLog(ctx, alertId);
  assert.ok(changed !== undefined && 'sealedUrl' in changed && changed.host === 'hooks.slack.com', JSON.stringify(changed));
  assert.not.ok(JSON.stringify(changed).includes(oldPath));
  const row = await ctx.server.pool.oneFirst(sql.unsafe`SELECT rule::text FROM alert_rules WHERE alert_id = ${alertId}`);
  assert.not.ok(String(row).includes(oldPath), 'the row still holds the plaintext URL');
});

test('an unknown project is 404', async (ctx) => {
  assert.is((await callAs(ctx.server, 'POST', '/v1/projects/nope/alerts', { as: ctx.member, json: errorRule })).status, 404);
});

test.run();
