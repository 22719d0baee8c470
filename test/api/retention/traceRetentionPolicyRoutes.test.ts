import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, callAs, createUser, login, type Credentials } from '../../support/authClient.ts';
import { httpSpec } from '../../support/httpSpec.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Ctx = { server: TestServer; admin: Credentials; member: Credentials; viewer: Credentials; adminHeaders: Record<string, string> };
const test = suite<Ctx>('trace retention policies over REST', {} as Ctx);
test.before(async (ctx) => {
  const env = authEnv({ SERVICE_DEFAULT_RETENTION_POLICY_DAYS: '30' });
  ctx.server = await startTestServer({ env });
  ctx.admin = { bearer: env.SERVICE_ADMIN_SECRET };
  ctx.adminHeaders = { authorization: `Bearer ${env.SERVICE_ADMIN_SECRET}` };
  await createUser(ctx.server, ctx.admin, { email: 'mia@example.com', username: 'mia', role: 'MEMBER', password: 'mia-pw-123' });
  await createUser(ctx.server, ctx.admin, { email: 'vic@example.com', username: 'vic', role: 'VIEWER', password: 'vic-pw-123' });
  ctx.member = await login(ctx.server, 'mia@example.com', 'mia-pw-123');
  ctx.viewer = await login(ctx.server, 'vic@example.com', 'vic-pw-123');
  const project = await callAs(ctx.server, 'POST', '/v1/projects', { as: ctx.admin, json: { name: 'shop' } });
  assert.is(project.status, 200, JSON.stringify(project.body));
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const create = async (ctx: Ctx, body: unknown) => {
  const reply = await callAs(ctx.server, 'POST', '/v1/trace_retention_policies', { as: ctx.admin, json: body });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return reply.body.data as { id: string; name: string };
};

test('an admin creates a 7-day policy: 201 with the policy, one TraceRetentionPolicyCreated; it is listed beside the default', async (ctx) => {
  const outcome = await httpSpec(ctx.server)
    .given()
    .when('POST', '/v1/trace_retention_policies', { body: { name: 'week', max_days: 7 }, headers: ctx.adminHeaders })
    .then({
      status: 201,
      events: [{ type: 'TraceRetentionPolicyCreated', data: { policyId: 1, name: 'week', maxDays: 7, maxTraces: null } }],
    });
  const policy = (outcome.body as { data: Record<string, unknown> }).data;
  assert.equal(
    { ...policy, created_at: typeof policy.created_at, updated_at: typeof policy.updated_at },
    {
      id: Buffer.from('ProjectTraceRetentionPolicy:1').toString('base64'),
      name: 'week',
      max_days: 7,
      max_traces: null,
      projects: [],
      created_at: 'string',
      updated_at: 'string',
      last_run: null,
    },
  );
  const list = await callAs(ctx.server, 'GET', '/v1/trace_retention_policies', { as: ctx.viewer });
  assert.is(list.status, 200);
  assert.equal(
    list.body.data.map((p: { name: string }) => p.name),
    ['week'],
  );
  // The default ran once at start (its last_run), or is about to: not compared.
  assert.equal(
    { ...list.body.default_policy, last_run: undefined },
    { name: 'Default', max_days: 30, max_traces: null, last_run: undefined },
  );
});

test('an admin changes a policy (PATCH keeps what it leaves out), assigns it to a project, deletes it: the project is back on the default', async (ctx) => {
  const policy = await create(ctx, { name: 'recent', max_traces: 100 });
  const patched = await callAs(ctx.server, 'PATCH', `/v1/trace_retention_policies/${policy.id}`, { as: ctx.admin, json: { max_days: 3 } });
  assert.is(patched.status, 200, JSON.stringify(patched.body));
  assert.equal([patched.body.data.name, patched.body.data.max_days, patched.body.data.max_traces], ['recent', 3, 100]);

  await httpSpec(ctx.server)
    .given()
    .when('PUT', '/v1/projects/shop/trace_retention_policy', { body: { policy_id: policy.id }, headers: ctx.adminHeaders })
    .then({
      status: 200,
      body: (body: { data: { policy_id: string; project_name: string; policy: { name: string } } }) =>
        assert.equal([body.data.policy_id, body.data.project_name, body.data.policy.name], [policy.id, 'shop', 'recent']),
      events: (events) => {
        assert.is(events.length, 1);
        assert.is(events[0]!.type, 'ProjectTraceRetentionPolicySet');
      },
    });
  const read = await callAs(ctx.server, 'GET', `/v1/trace_retention_policies/${policy.id}`, { as: ctx.member });
  assert.equal(
    read.body.data.projects.map((p: { name: string }) => p.name),
    ['shop'],
  );

  const deleted = await callAs(ctx.server, 'DELETE', `/v1/trace_retention_policies/${policy.id}`, { as: ctx.admin });
  assert.is(deleted.status, 204);
  const after = await callAs(ctx.server, 'GET', '/v1/projects/shop/trace_retention_policy', { as: ctx.viewer });
  assert.equal(after.body.data.policy_id, null);
  assert.equal(
    { ...after.body.data.policy, last_run: undefined },
    { name: 'Default', max_days: 30, max_traces: null, last_run: undefined },
  );
  const gone = await callAs(ctx.server, 'GET', `/v1/trace_retention_policies/${policy.id}`, { as: ctx.admin });
  assert.is(gone.status, 404);
  assert.is(gone.body.code, 'trace_retention_policy_not_found');
});

test('members and viewers get 403 with the usual JSON for every change, and nothing is appended; they may read', async (ctx) => {
  const policy = await create(ctx, { name: 'for-roles', max_days: 14 });
  const changes: [string, string, unknown][] = [
    ['POST', '/v1/trace_retention_policies', { name: 'mine', max_days: 1 }],
    ['PATCH', `/v1/trace_retention_policies/${policy.id}`, { max_days: 1 }],
    ['DELETE', `/v1/trace_retention_policies/${policy.id}`, undefined],
    ['PUT', '/v1/projects/shop/trace_retention_policy', { policy_id: policy.id }],
  ];
  for (const who of [ctx.member, ctx.viewer]) {
    for (const [method, path, body] of changes) {
      await httpSpec(ctx.server)
        .given()
        .when(method, path, { body, headers: { cookie: who.cookie! } })
        .then({
          status: 403,
          body: (b: { detail: unknown; code: unknown }) => {
            assert.type(b.detail, 'string', `${method} ${path}`);
            assert.type(b.code, 'string');
          },
          events: [],
        });
    }
    for (const path of [
      '/v1/trace_retention_policies',
      `/v1/trace_retention_policies/${policy.id}`,
      '/v1/projects/shop/trace_retention_policy',
    ])
      assert.is((await callAs(ctx.server, 'GET', path, { as: who })).status, 200, path);
  }
});

test('bad values are a 422 naming the field, and nothing is appended', async (ctx) => {
  const policy = await create(ctx, { name: 'for-422', max_days: 5 });
  const cases: [string, string, unknown, string][] = [
    ['POST', '/v1/trace_retention_policies', { name: 'neg', max_days: -7 }, 'body.max_days'],
    ['POST', '/v1/trace_retention_policies', { name: 'neither' }, 'body.max_days'],
    ['POST', '/v1/trace_retention_policies', { name: 'both null', max_days: null, max_traces: null }, 'body.max_days'],
    ['POST', '/v1/trace_retention_policies', { name: 'count', max_traces: 2.5 }, 'body.max_traces'],
    ['POST', '/v1/trace_retention_policies', { name: 'text', max_days: '7' }, 'body.max_days'],
    ['POST', '/v1/trace_retention_policies', { name: '', max_days: 7 }, 'body.name'],
    ['POST', '/v1/trace_retention_policies', { max_days: 7 }, 'body.name'],
    ['PATCH', `/v1/trace_retention_policies/${policy.id}`, { max_days: -1 }, 'body.max_days'],
    ['PATCH', `/v1/trace_retention_policies/${policy.id}`, { max_days: null }, 'body.max_days'],
    ['PUT', '/v1/projects/shop/trace_retention_policy', { policy_id: 'nope' }, 'body.policy_id'],
    ['PUT', '/v1/projects/shop/trace_retention_policy', {}, 'body.policy_id'],
  ];
  for (const [method, path, body, field] of cases) {
    await httpSpec(ctx.server)
      .given()
      .when(method, path, { body, headers: ctx.adminHeaders })
      .then({
        status: 422,
        body: (b: { detail: string }) => assert.ok(b.detail.includes(field), `${method} ${JSON.stringify(body)}: ${b.detail}`),
        events: [],
      });
  }
  const taken = await callAs(ctx.server, 'POST', '/v1/trace_retention_policies', { as: ctx.admin, json: { name: 'for-422', max_days: 1 } });
  assert.is(taken.status, 409);
  assert.is(taken.body.code, 'trace_retention_policy_exists');
});

test.run();
