import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, callAs, type Credentials, createKey, createUser, login } from '../../support/authClient.ts';
import { seed } from '../../support/restClient.ts';
import { newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Ctx = {
  server: TestServer;
  secret: Credentials;
  admin: Credentials;
  member: Credentials;
  viewer: Credentials;
  adaId: string;
  bobId: string;
  adminUserId: string;
  keyId: string;
};
const test = suite<Ctx>('GET /v1/audit/events and GraphQL auditEvents: who did what, admins only', {} as Ctx);

type Entry = any;

const audit = async (ctx: Ctx, query = '', as: Credentials = ctx.admin) => callAs(ctx.server, 'GET', `/v1/audit/events${query}`, { as });

const gql = (ctx: Ctx, query: string, variables: Record<string, unknown> = {}, as: Credentials = ctx.admin) =>
  callAs(ctx.server, 'POST', '/graphql', { as, json: { query, variables } });

test.before(async (ctx) => {
  const env = authEnv();
  ctx.server = await startTestServer({ env });
  ctx.secret = { bearer: env.SERVICE_ADMIN_SECRET };
  // The default admin signs in and does the work, so the actor is a person with a name.
  ctx.admin = await login(ctx.server, 'admin@localhost', 'admin');
  const me = await callAs(ctx.server, 'GET', '/v1/user', { as: ctx.admin });
  ctx.adminUserId = me.body.data.id;
  ctx.adaId = await createUser(ctx.server, ctx.admin, {
    email: 'ada@example.com',
    username: 'ada',
    role: 'MEMBER',
    password: 'ada-password-1',
  });
  ctx.bobId = await createUser(ctx.server, ctx.admin, {
    email: 'bob@example.com',
    username: 'bob',
    role: 'VIEWER',
    password: 'bob-password-1',
  });
  assert.is((await callAs(ctx.server, 'PATCH', `/v1/users/${ctx.bobId}`, { as: ctx.admin, json: { role: 'MEMBER' } })).status, 200);
  const key = await createKey(ctx.server, ctx.admin, 'system', 'ci pipeline');
  ctx.keyId = key.id;
  assert.is((await callAs(ctx.server, 'DELETE', `/v1/system/api_keys/${key.id}`, { as: ctx.admin })).status, 204);
  ctx.member = await login(ctx.server, 'ada@example.com', 'ada-password-1');
  ctx.viewer = { cookie: (await login(ctx.server, 'bob@example.com', 'bob-password-1')).cookie };
  // bob is a member now; a viewer of its own:
  await createUser(ctx.server, ctx.admin, { email: 'vera@example.com', username: 'vera', role: 'VIEWER', password: 'vera-password-1' });
  ctx.viewer = await login(ctx.server, 'vera@example.com', 'vera-password-1');
  await seed(ctx.server, 'shop', [spanRecord({ traceId: newTraceId() }), spanRecord({ traceId: newTraceId() })]);
  await seed(ctx.server, 'shop', [spanRecord({ traceId: newTraceId() })]);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

test('an admin sees a user created, a role changed and a key deleted, newest first, with the actor named', async (ctx) => {
  const reply = await audit(ctx, '?limit=1000');
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  const entries: Entry[] = reply.body.data;
  const ids = entries.map((e) => Number(Buffer.from(e.id, 'base64').toString().split(':')[1]));
  assert.equal(
    ids,
    [...ids].sort((a, b) => b - a),
    'newest first',
  );

  const created = entries.find((e) => e.type === 'UserCreated' && e.resource?.name === 'ada');
  assert.ok(created, 'ada created');
  assert.equal(created.actor, {
    actor: `user:${Buffer.from(ctx.adminUserId, 'base64').toString().slice(5)}`,
    kind: 'user',
    name: 'admin',
    user_id: ctx.adminUserId,
  });
  assert.equal(created.resource, { type: 'User', id: ctx.adaId, name: 'ada', stream: created.resource.stream, link: '/settings/users' });
  assert.match(created.request_id, /\S+/);
  assert.match(created.time, /^\d{4}-\d\d-\d\dT/);
  assert.match(created.position, /^\d+:\d+$/);

  const role = entries.find((e) => e.type === 'RoleChanged' && e.resource?.name === 'bob');
  assert.is(role.summary, 'Role VIEWER → MEMBER');
  assert.equal(role.changes, [{ field: 'role', before: 'VIEWER', after: 'MEMBER' }]);
  assert.is(role.actor.name, 'admin');

  const revoked = entries.find((e) => e.type === 'ApiKeyRevoked');
  assert.is(revoked.summary, 'System API key "ci pipeline" deleted');
  assert.equal(revoked.resource.id, ctx.keyId);
  assert.is(revoked.resource.link, '/settings/api-keys');
  assert.is(revoked.actor.name, 'admin');
});

test('span ingestion is summed per project and hour, not listed export by export', async (ctx) => {
  const entries: Entry[] = (await audit(ctx, '?type=SpansIngested')).body.data;
  assert.is(entries.length, 1, JSON.stringify(entries));
  const [ingested] = entries;
  assert.is(ingested.kind, 'ingestion');
  assert.is(ingested.ingestion.spans, 3);
  assert.is(ingested.ingestion.exports, 2);
  assert.is(ingested.resource.name, 'shop');
  assert.match(ingested.resource.link, /^\/projects\/\S+$/);
  assert.is(ingested.summary, '3 spans in 2 exports to project "shop"');
});

test('filters: actor, type, resource (a GlobalID or a stream), from and to', async (ctx) => {
  const byType: Entry[] = (await audit(ctx, '?type=RoleChanged,ApiKeyRevoked')).body.data;
  assert.equal([...new Set(byType.map((e) => e.type))].sort(), ['ApiKeyRevoked', 'RoleChanged']);

  const onBob: Entry[] = (await audit(ctx, `?resource=${encodeURIComponent(ctx.bobId)}`)).body.data;
  assert.ok(onBob.length >= 2 && onBob.every((e) => e.resource.name === 'bob'), JSON.stringify(onBob));
  const stream = onBob[0].resource.stream;
  const byStream: Entry[] = (await audit(ctx, `?resource=${encodeURIComponent(stream)}`)).body.data;
  assert.ok(byStream.length > 0 && byStream.every((e) => e.resource.stream === stream));

  const byAdmin: Entry[] = (await audit(ctx, `?actor=${encodeURIComponent(ctx.adminUserId)}&limit=1000`)).body.data;
  assert.ok(byAdmin.length > 0 && byAdmin.every((e) => e.actor.name === 'admin'));
  const byActorText: Entry[] = (await audit(ctx, `?actor=${encodeURIComponent(byAdmin[0].actor.actor)}&limit=1000`)).body.data;
  assert.is(byActorText.length, byAdmin.length);

  const future: Entry[] = (await audit(ctx, '?from=2999-01-01T00:00:00Z')).body.data;
  assert.equal(future, []);
  const past: Entry[] = (await audit(ctx, '?to=2000-01-01')).body.data;
  assert.equal(past, []);
  const now: Entry[] = (await audit(ctx, `?from=2000-01-01&to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body
    .data;
  assert.ok(now.length > 5);
});

test('bad filter values: 422 naming the parameter', async (ctx) => {
  for (const [query, parameter] of [
    ['?type=NoSuchEvent', 'query.type'],
    ['?from=yesterday', 'query.from'],
    ['?to=2024-13-01', 'query.to'],
    ['?from=2024-02-02&to=2024-02-01', 'query.to'],
    ['?limit=0', 'query.limit'],
    ['?cursor=not-a-cursor', 'query.cursor'],
    [`?resource=${encodeURIComponent(Buffer.from('Project:999999').toString('base64'))}`, 'query.resource'],
    [`?resource=${encodeURIComponent(Buffer.from('Span:1').toString('base64'))}`, 'query.resource'],
    ['?actor=%20', 'query.actor'],
  ] as const) {
    const reply = await audit(ctx, query);
    assert.is(reply.status, 422, `${query}: ${JSON.stringify(reply.body)}`);
    assert.ok(String(reply.body.detail).startsWith(parameter), `${query}: ${reply.body.detail}`);
  }
});

test('cursor paging: pages follow each other without overlap, as other /v1 lists page', async (ctx) => {
  const all: Entry[] = (await audit(ctx, '?limit=1000')).body.data;
  const seen: Entry[] = [];
  let cursor: string | null = null;
  do {
    const reply = await audit(ctx, `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.is(reply.status, 200);
    seen.push(...reply.body.data);
    cursor = reply.body.next_cursor;
  } while (cursor !== null);
  assert.equal(
    seen.map((e) => e.id),
    all.map((e) => e.id),
  );
});

test('members and viewers get 403 (REST and GraphQL); the admin secret and admins may read', async (ctx) => {
  for (const as of [ctx.member, ctx.viewer]) {
    const reply = await audit(ctx, '', as);
    assert.is(reply.status, 403);
    assert.is(reply.body.code, 'admin_required');
    assert.match(reply.body.detail, /admin/i);
    const graphql = await gql(ctx, '{ auditEvents(first: 5) { edges { node { id } } } }', {}, as);
    assert.is(graphql.body.errors[0].extensions.code, 'admin_required');
    assert.is(graphql.body.data, null);
  }
  assert.is((await audit(ctx, '', ctx.secret)).status, 200);
});

test('GraphQL auditEvents: the same entries and filters as REST', async (ctx) => {
  const query = `query Audit($types: [String!], $after: String) {
    auditEvents(first: 2, types: $types, after: $after) {
      edges { cursor node { id type summary actor { kind name userId } resource { type id name link } changes { field before after } erasedBy } }
      pageInfo { hasNextPage endCursor }
    }
  }`;
  const first = await gql(ctx, query, { types: ['RoleChanged', 'UserCreated'] });
  assert.is(first.body.errors, undefined, JSON.stringify(first.body.errors));
  const rest: Entry[] = (await audit(ctx, '?type=RoleChanged,UserCreated')).body.data;
  const page1 = first.body.data.auditEvents;
  assert.equal(
    page1.edges.map((e: Entry) => e.node.id),
    rest.slice(0, 2).map((e) => e.id),
  );
  assert.ok(page1.pageInfo.hasNextPage);
  const second = await gql(ctx, query, { types: ['RoleChanged', 'UserCreated'], after: page1.pageInfo.endCursor });
  assert.equal(
    second.body.data.auditEvents.edges.map((e: Entry) => e.node.id),
    rest.slice(2, 4).map((e) => e.id),
  );
  const role = [...page1.edges, ...second.body.data.auditEvents.edges]
    .map((e: Entry) => e.node)
    .find((n: Entry) => n.type === 'RoleChanged');
  assert.equal(role.changes, [{ field: 'role', before: 'VIEWER', after: 'MEMBER' }]);
  assert.equal(role.actor, { kind: 'user', name: 'admin', userId: ctx.adminUserId });

  const bad = await gql(ctx, '{ auditEvents(first: 5, types: ["Nope"]) { edges { cursor } } }');
  assert.is(bad.body.errors[0].extensions.code, 'invalid_query');
  assert.match(bad.body.errors[0].message, /^Argument "types"/);
});

test.run();
