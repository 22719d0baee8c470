import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authEnv, callAs, createUser, login, type Credentials } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { dataOf, errorCodes, gql } from '../graphql/gqlClient.ts';

type Ctx = { server: TestServer; admin: Credentials; member: Credentials; projectId: string };
const test = suite<Ctx>('trace retention policies over GraphQL', {} as Ctx);
test.before(async (ctx) => {
  const env = authEnv({ SERVICE_DEFAULT_RETENTION_POLICY_DAYS: '90' });
  ctx.server = await startTestServer({ env });
  ctx.admin = { bearer: env.SERVICE_ADMIN_SECRET };
  await createUser(ctx.server, ctx.admin, { email: 'mia@example.com', username: 'mia', role: 'MEMBER', password: 'mia-pw-123' });
  ctx.member = await login(ctx.server, 'mia@example.com', 'mia-pw-123');
  ctx.projectId = (await callAs(ctx.server, 'POST', '/v1/projects', { as: ctx.admin, json: { name: 'shop' } })).body.data.id;
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const CREATE = `mutation($input: CreateProjectTraceRetentionPolicyInput!) {
  createProjectTraceRetentionPolicy(input: $input) { node { id name maxDays maxTraces projects { edges { node { name } } } lastRun { ranAt } } }
}`;

test('an admin creates a policy for a project; Project.traceRetentionPolicy and the list show it; patch and delete by Phoenix’s names', async ({
  server,
  admin,
  projectId,
}) => {
  const created = dataOf(await gql(server, CREATE, { input: { name: 'week', maxDays: 7, addProjects: [projectId] } }, admin))
    .createProjectTraceRetentionPolicy.node;
  const { lastRun, ...rest } = created;
  assert.equal(
    { ...rest, id: typeof created.id },
    { id: 'string', name: 'week', maxDays: 7, maxTraces: null, projects: { edges: [{ node: { name: 'shop' } }] } },
  );
  // The retention reactor, woken by the policy's own event, may already have run it once.
  assert.ok(lastRun === null || !Number.isNaN(Date.parse(lastRun.ranAt)), `lastRun ${JSON.stringify(lastRun)}`);
  const read = dataOf(
    await gql(
      server,
      `query($id: ID!) { node(id: $id) { ... on Project { traceRetentionPolicy { name } } }
        projectTraceRetentionPolicies { edges { node { name } } } defaultTraceRetentionPolicy { maxDays lastRun { ranAt } } }`,
      { id: projectId },
      admin,
    ),
  );
  assert.equal(read.node.traceRetentionPolicy, { name: 'week' });
  assert.equal(read.projectTraceRetentionPolicies.edges, [{ node: { name: 'week' } }]);
  assert.is(read.defaultTraceRetentionPolicy.maxDays, 90);

  const patched = dataOf(
    await gql(
      server,
      `mutation($input: PatchProjectTraceRetentionPolicyInput!) { patchProjectTraceRetentionPolicy(input: $input) { node { maxDays maxTraces projects { edges { node { name } } } } } }`,
      { input: { id: created.id, maxTraces: 500, removeProjects: [projectId] } },
      admin,
    ),
  ).patchProjectTraceRetentionPolicy.node;
  assert.equal(patched, { maxDays: 7, maxTraces: 500, projects: { edges: [] } });

  dataOf(
    await gql(
      server,
      `mutation($input: DeleteProjectTraceRetentionPolicyInput!) { deleteProjectTraceRetentionPolicy(input: $input) { node { name } } }`,
      {
        input: { id: created.id },
      },
      admin,
    ),
  );
  const after = dataOf(await gql(server, '{ projectTraceRetentionPolicies { edges { node { name } } } }', {}, admin));
  assert.equal(after.projectTraceRetentionPolicies.edges, []);
});

test('a member may read the policies but not change them; a negative maxDays is refused naming it', async ({
  server,
  admin,
  member,
  projectId,
}) => {
  assert.equal(errorCodes(await gql(server, CREATE, { input: { name: 'mine', maxDays: 1 } }, member)), ['admin_required']);
  assert.equal(
    errorCodes(
      await gql(
        server,
        'mutation($p: ID!) { setProjectTraceRetentionPolicy(projectId: $p, policyId: null) { name } }',
        { p: projectId },
        member,
      ),
    ),
    ['admin_required'],
  );
  assert.ok(dataOf(await gql(server, '{ projectTraceRetentionPolicies { edges { node { name } } } }', {}, member)));
  const bad = await gql(server, CREATE, { input: { name: 'neg', maxDays: -3 } }, admin);
  assert.equal(errorCodes(bad), ['invalid_retention_rule']);
  assert.match(bad.body.errors[0].message, /input\.maxDays/);
});

test.run();
