import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, createUser, login, type Credentials } from '../../support/authClient.ts';
import { seed } from '../../support/restClient.ts';
import { attrs, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { dataOf, errorCodes, gql } from './gqlClient.ts';

type Ctx = { server: TestServer; admin: Credentials; member: Credentials; viewer: Credentials; secret: Credentials };
const test = suite<Ctx>('GraphQL mutations (auth on)', {} as Ctx);

test.before(async (ctx) => {
  const env = authEnv();
  ctx.server = await startTestServer({ env });
  ctx.secret = { bearer: env.SERVICE_ADMIN_SECRET };
  await createUser(ctx.server, ctx.secret, { email: 'member@example.com', username: 'member', role: 'MEMBER', password: 'member-pw' });
  await createUser(ctx.server, ctx.secret, { email: 'viewer@example.com', username: 'viewer', role: 'VIEWER', password: 'viewer-pw' });
  ctx.member = await login(ctx.server, 'member@example.com', 'member-pw');
  ctx.viewer = await login(ctx.server, 'viewer@example.com', 'viewer-pw');
  ctx.admin = await login(ctx.server, 'admin@localhost', 'admin');
});
test.after(async (ctx) => {
  await ctx.server.close();
});

test('projects: members create, admins edit and delete, the default project stays', async ({ server, admin, member, viewer }) => {
  const create = `mutation($input: CreateProjectInput!) { createProject(input: $input) { project { id name description gradientStartColor } } }`;
  const created = dataOf(
    await gql(server, create, { input: { name: 'gql-proj', description: 'first', gradientStartColor: '#123456' } }, member),
  ).createProject.project;
  assert.equal([created.name, created.description, created.gradientStartColor], ['gql-proj', 'first', '#123456']);
  assert.equal(errorCodes(await gql(server, create, { input: { name: 'gql-proj' } }, member)), ['project_exists']);
  assert.equal(errorCodes(await gql(server, create, { input: { name: 'nope' } }, viewer)), ['viewer_forbidden']);

  const patch = `mutation($input: PatchProjectInput!) { patchProject(input: $input) { project { description gradientStartColor } } }`;
  assert.equal(errorCodes(await gql(server, patch, { input: { id: created.id, description: 'x' } }, member)), ['admin_required']);
  const patched = dataOf(await gql(server, patch, { input: { id: created.id, description: 'second' } }, admin)).patchProject.project;
  assert.equal(patched, { description: 'second', gradientStartColor: '#123456' });

  const del = `mutation($id: ID!) { deleteProject(id: $id) { deletedIds } }`;
  const defaultId = dataOf(await gql(server, '{ getProjectByName(name: "default") { id } }', {}, admin)).getProjectByName.id;
  assert.equal(errorCodes(await gql(server, del, { id: defaultId }, admin)), ['default_project']);
  assert.equal(dataOf(await gql(server, del, { id: created.id }, admin)).deleteProject.deletedIds, [created.id]);
  assert.equal(dataOf(await gql(server, '{ getProjectByName(name: "gql-proj") { id } }', {}, admin)).getProjectByName, null);
  assert.equal(errorCodes(await gql(server, del, { id: 'bogus' }, admin)), ['project_not_found']);
});

test('traces, spans and sessions are deleted through the REST deletion command', async ({ server, member }) => {
  const [t1, t2, t3] = [newTraceId(), newTraceId(), newTraceId()];
  const root = (traceId: string, session?: string) => spanRecord({ traceId, attributes: attrs(session ? { 'session.id': session } : {}) });
  const s2 = root(t2);
  await seed(server, 'deletions', [root(t1), s2, spanRecord({ traceId: t2, parentId: s2.spanId }), root(t3, 'sess-del')]);
  const trace = (id: string) => gql(server, `query($t: String!) { getTraceByOtelId(traceId: $t) { id numSpans } }`, { t: id }, member);
  const t1Id = dataOf(await trace(t1)).getTraceByOtelId.id;
  const deleted = dataOf(
    await gql(
      server,
      `mutation($ids: [ID!]!) { deleteTraces(traceIds: $ids) { deletedIds } }`,
      { ids: [t1Id, 'ffffffffffffffffffffffffffffffff'] },
      member,
    ),
  );
  assert.equal(deleted.deleteTraces.deletedIds, [t1Id]);
  assert.is(dataOf(await trace(t1)).getTraceByOtelId, null);

  dataOf(await gql(server, `mutation($ids: [ID!]!) { deleteSpans(spanIds: $ids) { deletedIds } }`, { ids: [s2.spanId] }, member));
  assert.is(
    dataOf(await gql(server, `query($s: String!) { getSpanByOtelId(spanId: $s) { id } }`, { s: s2.spanId }, member)).getSpanByOtelId,
    null,
  );

  dataOf(await gql(server, `mutation { deleteProjectSessions(sessionIds: ["sess-del"]) { deletedIds } }`, {}, member));
  assert.is(dataOf(await gql(server, `{ getProjectSessionById(sessionId: "sess-del") { id } }`, {}, member)).getProjectSessionById, null);
});

test('users: admins create, change and delete them; a member cannot', async ({ server, admin, member }) => {
  const create = `mutation($input: CreateUserInput!) { createUser(input: $input) { user { id username email role authMethod passwordNeedsReset } } }`;
  const input = { email: 'New@Example.com', username: 'newbie', role: 'VIEWER', password: 'newbie-pw' };
  assert.equal(errorCodes(await gql(server, create, { input }, member)), ['admin_required']);
  const user = dataOf(await gql(server, create, { input }, admin)).createUser.user;
  assert.equal(
    { ...user, id: undefined },
    { id: undefined, username: 'newbie', email: 'new@example.com', role: 'VIEWER', authMethod: 'LOCAL', passwordNeedsReset: true },
  );
  assert.equal(errorCodes(await gql(server, create, { input: { ...input, role: 'SYSTEM' } }, admin)), ['system_role_forbidden']);

  const patch = `mutation($input: PatchUserInput!) { patchUser(input: $input) { user { username role } } }`;
  assert.equal(dataOf(await gql(server, patch, { input: { userId: user.id, role: 'MEMBER', username: 'grown' } }, admin)).patchUser.user, {
    username: 'grown',
    role: 'MEMBER',
  });
  const users = dataOf(
    await gql(server, `{ users(first: 2) { edges { cursor node { username } } pageInfo { hasNextPage endCursor } } }`, {}, admin),
  ).users;
  assert.equal(
    users.edges.map((e: any) => e.node.username),
    ['grown', 'viewer'],
  );
  const rest = dataOf(
    await gql(
      server,
      `query($a: String) { users(first: 50, after: $a) { edges { node { username isManagementUser } } } }`,
      { a: users.pageInfo.endCursor },
      admin,
    ),
  ).users;
  assert.ok(rest.edges.some((e: any) => e.node.username === 'admin' && e.node.isManagementUser));
  assert.not.ok(rest.edges.some((e: any) => e.node.username === 'grown'));

  assert.equal(
    dataOf(await gql(server, `mutation($ids: [ID!]!) { deleteUsers(userIds: $ids) { deletedIds } }`, { ids: [user.id] }, admin)).deleteUsers
      .deletedIds,
    [user.id],
  );
  assert.equal(errorCodes(await gql(server, `query($id: ID!) { node(id: $id) { id } }`, { id: user.id }, admin)), ['node_not_found']);
});

test('own account: username, and a password change that needs the current one and ends the session', async ({ server }) => {
  const me = await login(server, 'viewer@example.com', 'viewer-pw');
  const patch = `mutation($input: PatchViewerInput!) { patchViewer(input: $input) { user { username } } }`;
  assert.equal(dataOf(await gql(server, patch, { input: { username: 'viewer2' } }, me)).patchViewer.user, { username: 'viewer2' });
  assert.equal(errorCodes(await gql(server, patch, { input: { newPassword: 'other-pw' } }, me)), ['invalid_input']);
  assert.equal(errorCodes(await gql(server, patch, { input: { newPassword: 'other-pw', currentPassword: 'wrong' } }, me)), [
    'invalid_current_password',
  ]);
  const changed = await gql(server, patch, { input: { newPassword: 'other-pw', currentPassword: 'viewer-pw' } }, me);
  dataOf(changed);
  assert.ok(
    changed.setCookies.some((c) => /^loupe-access-token=; Max-Age=0/.test(c)),
    `session cookies cleared: ${changed.setCookies}`,
  );
  assert.is((await gql(server, '{ viewer { username } }', {}, me)).status, 401);
  const again = await login(server, 'viewer@example.com', 'other-pw');
  assert.equal(dataOf(await gql(server, '{ viewer { username role } }', {}, again)).viewer, { username: 'viewer2', role: 'VIEWER' });
});

test('API keys: own keys shown once and usable, system keys by admins, deletion', async ({ server, member, admin }) => {
  const created = dataOf(
    await gql(
      server,
      `mutation { createUserApiKey(input: { name: "ci", description: "for CI" }) { key apiKey { id name description expiresAt user { username } } } }`,
      {},
      member,
    ),
  ).createUserApiKey;
  assert.match(created.key, /^lpk_/);
  assert.equal(
    { ...created.apiKey, id: undefined },
    { id: undefined, name: 'ci', description: 'for CI', expiresAt: null, user: { username: 'member' } },
  );
  assert.equal(dataOf(await gql(server, '{ viewer { username } }', {}, { bearer: created.key })).viewer, { username: 'member' });
  const mine = dataOf(await gql(server, '{ viewerApiKeys { id name } }', {}, member)).viewerApiKeys;
  assert.ok(mine.some((k: any) => k.id === created.apiKey.id));
  assert.not.ok(JSON.stringify(mine).includes(created.key), 'the value is never listed');
  assert.equal(errorCodes(await gql(server, '{ userApiKeys { id } }', {}, member)), ['admin_required']);
  assert.ok(
    dataOf(await gql(server, '{ userApiKeys { id user { username } } }', {}, admin)).userApiKeys.some(
      (k: any) => k.id === created.apiKey.id,
    ),
  );
  assert.equal(
    errorCodes(
      await gql(server, `mutation { createUserApiKey(input: { name: "old", expiresAt: "2001-01-01T00:00:00Z" }) { key } }`, {}, member),
    ),
    ['api_key_expiry_past'],
  );
  const blank = await gql(server, `mutation { createUserApiKey(input: { name: "  " }) { key } }`, {}, member);
  assert.equal(errorCodes(blank), ['api_key_name_required']);
  assert.match(blank.body.errors[0].message, /^Argument "input.name": Name cannot be empty/);
  dataOf(await gql(server, `mutation($id: ID!) { deleteUserApiKey(id: $id) { deletedIds } }`, { id: created.apiKey.id }, member));
  assert.is((await gql(server, '{ viewer { username } }', {}, { bearer: created.key })).status, 401);

  const system = dataOf(
    await gql(server, `mutation { createSystemApiKey(input: { name: "collector" }) { key apiKey { id name } } }`, {}, admin),
  ).createSystemApiKey;
  assert.equal(dataOf(await gql(server, '{ viewer { role } }', {}, { bearer: system.key })).viewer, { role: 'SYSTEM' });
  assert.ok(dataOf(await gql(server, '{ systemApiKeys { id } }', {}, admin)).systemApiKeys.some((k: any) => k.id === system.apiKey.id));
  dataOf(await gql(server, `mutation($id: ID!) { deleteSystemApiKey(id: $id) { deletedIds } }`, { id: system.apiKey.id }, admin));
  assert.is((await gql(server, '{ viewer { role } }', {}, { bearer: system.key })).status, 401);
});

test('secrets: admins set, list, reveal and delete; values appear only when revealed, never in logs', async ({ server, admin, member }) => {
  const upsert = `mutation($s: [SecretEntryInput!]!) { upsertOrDeleteSecrets(secrets: $s) { upsertedKeys deletedKeys } }`;
  const plaintext = 'sk-very-secret-value-123';
  assert.equal(errorCodes(await gql(server, upsert, { s: [{ key: 'OPENAI_API_KEY', value: plaintext }] }, member)), ['admin_required']);
  assert.equal(
    dataOf(
      await gql(
        server,
        upsert,
        {
          s: [
            { key: 'OPENAI_API_KEY', value: plaintext },
            { key: 'OTHER', value: 'x' },
            { key: 'GONE', value: null },
          ],
        },
        admin,
      ),
    ).upsertOrDeleteSecrets,
    { upsertedKeys: ['OTHER', 'OPENAI_API_KEY'], deletedKeys: ['GONE'] },
  );
  assert.equal(errorCodes(await gql(server, upsert, { s: [{ key: '1bad', value: 'x' }] }, admin)), ['secret_key_invalid']);
  const list = await gql(
    server,
    `{ secrets(first: 10, search: "openai") { edges { node { id key updatedAt user { username } } } } }`,
    {},
    admin,
  );
  const node = dataOf(list).secrets.edges.map((e: any) => e.node);
  assert.equal(
    node.map((s: any) => [s.key, s.user.username]),
    [['OPENAI_API_KEY', 'admin']],
  );
  assert.not.ok(JSON.stringify(list.body).includes(plaintext));
  const revealed = dataOf(
    await gql(server, `query($id: ID!) { node(id: $id) { ... on Secret { key value } } }`, { id: node[0].id }, admin),
  ).node;
  assert.equal(revealed, { key: 'OPENAI_API_KEY', value: plaintext });
  assert.equal(errorCodes(await gql(server, `query($id: ID!) { node(id: $id) { id } }`, { id: node[0].id }, member)), ['admin_required']);
  dataOf(await gql(server, upsert, { s: [{ key: 'OPENAI_API_KEY', value: null }] }, admin));
  assert.equal(
    dataOf(await gql(server, `{ secrets(first: 10) { edges { node { key } } } }`, {}, admin)).secrets.edges.map((e: any) => e.node.key),
    ['OTHER'],
  );
  assert.not.ok(
    server.logLines.some((l) => l.includes(plaintext)),
    'the value is in no log line',
  );
});

test.run();

const csrf = suite<{ server: TestServer }>('GraphQL and CSRF', {} as { server: TestServer });
csrf.before(async (ctx) => {
  ctx.server = await startTestServer({
    env: { SERVICE_CSRF_TRUSTED_ORIGINS: 'https://app.example.com', SERVICE_HOST_ROOT_PATH: '/loupe' },
  });
});
csrf.after(async (ctx) => {
  await ctx.server.close();
});

csrf('GraphQL lives under the root path', async ({ server }) => {
  assert.match(server.baseUrl, /\/loupe$/);
  assert.equal(dataOf(await gql(server, '{ viewer { id } }')), { viewer: null });
  const outside = await fetch(server.baseUrl.replace(/\/loupe$/, '/graphql'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"query":"{ viewer { id } }"}',
  });
  assert.is(outside.status, 404);
});

csrf('the REST layer’s CSRF rule applies to /graphql: a foreign Origin or Referer is refused', async ({ server }) => {
  const post = (headers: Record<string, string>) =>
    fetch(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: 'mutation { createProject(input: { name: "csrf" }) { project { id } } }' }),
    });
  const evil = await post({ origin: 'https://evil.example.net' });
  assert.is(evil.status, 401);
  assert.equal(await evil.json(), { detail: 'untrusted origin', code: 'untrusted_origin' });
  assert.is((await post({ referer: 'https://evil.example.net/page' })).status, 401);
  const trusted = await post({ origin: 'https://app.example.com' });
  assert.is(trusted.status, 200);
  assert.ok(((await trusted.json()) as any).data.createProject.project.id);
});

csrf.run();
