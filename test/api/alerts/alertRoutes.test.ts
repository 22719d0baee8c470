import { suite } from 'uvu';
import * as assert from 'uvu/assert';
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
const errorRule = {
  name: 'Errors up',
  metric: 'error_rate',
  window_seconds: 20,
  evaluation_interval_seconds: 5,
  condition: { op: '>', threshold: 0.2 },
  destinations: [
    { type: 'webhook', url: 'https://hooks.example.com/loupe', secret: SECRET },
    { type: 'slack', url: 'https://hooks.slack.com/services/T0/B0/x' },
  ],
};

test('a rule is created: 201 with the rule (the secret only said to be set), one AlertRuleCreated with the secret sealed', async (ctx) => {
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
      destinations: [
        { type: 'webhook', url: 'https://hooks.example.com/loupe', secret_set: true },
        { type: 'slack', url: 'https://hooks.slack.com/services/T0/B0/x' },
      ],
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
  const log = JSON.stringify((await wholeLog(ctx.server.store)).map((e) => e.data));
  assert.not.ok(log.includes(SECRET), 'the secret is in the log in plaintext');
  assert.not.ok(
    ctx.server.logLines.some((l) => l.includes(SECRET)),
    'the secret is in a log line',
  );
  const audit = await callAs(ctx.server, 'GET', '/v1/audit/events', { as: ctx.admin });
  assert.not.ok(JSON.stringify(audit.body).includes(SECRET), 'the secret is in the audit trail');
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
  assert.not.ok(JSON.stringify(list.body).includes(SECRET));
  assert.is((await callAs(ctx.server, 'GET', `/v1/projects/shop/alerts/${id}`, { as: ctx.viewer })).status, 200);
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
  ['a file: URL', { destinations: [{ type: 'slack', url: 'file:///etc/passwd' }] }, /^body\.destinations\.0\.url: must be an http/],
  ['a loopback URL', { destinations: [{ type: 'slack', url: 'http://127.0.0.1:8080/' }] }, /^body\.destinations\.0\.url: is a loopback/],
  [
    'a metadata URL',
    { destinations: [{ type: 'slack', url: 'http://169.254.169.254/latest' }] },
    /^body\.destinations\.0\.url: is a loopback/,
  ],
  [
    'a loopback spelled as a number',
    { destinations: [{ type: 'slack', url: 'http://2130706433:8080/' }] },
    /^body\.destinations\.0\.url: is a loopback/,
  ],
  [
    'a loopback as IPv4-mapped IPv6',
    { destinations: [{ type: 'slack', url: 'http://[::ffff:127.0.0.1]/' }] },
    /^body\.destinations\.0\.url: is a loopback/,
  ],
  [
    'a private network address',
    { destinations: [{ type: 'slack', url: 'https://10.1.2.3/hook' }] },
    /^body\.destinations\.0\.url: is a loopback/,
  ],
  ['a private URL by name', { destinations: [{ type: 'slack', url: 'http://localhost/' }] }, /^body\.destinations\.0\.url: is a loopback/],
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

test('GraphQL: a project lists its rules for a viewer; a member creates and deletes one; a viewer may not', async (ctx) => {
  const gql = (as: Credentials, query: string, variables: Record<string, unknown> = {}) =>
    callAs(ctx.server, 'POST', '/graphql', { as, json: { query, variables } });
  const projects = await callAs(ctx.server, 'GET', '/v1/projects', { as: ctx.viewer });
  const shop = projects.body.data.find((p: { name: string }) => p.name === 'shop').id as string;
  const create = `mutation($p: ID!, $r: String!) { createAlertRule(projectId: $p, rule: $r) { id name state metric condition destinations } }`;
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
      ['webhook https://hooks.example.com/loupe', 'slack https://hooks.slack.com/services/T0/B0/x'],
    ],
  );
  const bad = await gql(ctx.member, create, { p: shop, r: JSON.stringify({ ...errorRule, window_seconds: 0 }) });
  assert.match(bad.body.errors?.[0]?.message ?? '', /window_seconds: must be at least 10/);
  const listed = await gql(
    ctx.viewer,
    `query($p: ID!) { node(id: $p) { ... on Project { alertRules { id name lastValue lastEvaluatedAt } } } }`,
    { p: shop },
  );
  assert.is(listed.body.errors, undefined, JSON.stringify(listed.body.errors));
  assert.ok(listed.body.data.node.alertRules.some((r: { id: string }) => r.id === rule.id));
  assert.not.ok(JSON.stringify(listed.body).includes(SECRET));
  const deleted = await gql(ctx.member, `mutation($id: ID!) { deleteAlertRule(id: $id) { deletedIds } }`, { id: rule.id });
  assert.equal(deleted.body.data?.deleteAlertRule?.deletedIds, [rule.id], JSON.stringify(deleted.body));
});

test('an unknown project is 404', async (ctx) => {
  assert.is((await callAs(ctx.server, 'POST', '/v1/projects/nope/alerts', { as: ctx.member, json: errorRule })).status, 404);
});

test.run();
