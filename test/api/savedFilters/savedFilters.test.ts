import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, seed } from '../../support/restClient.ts';
import { newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Ctx = { server: TestServer; projectGid: string };
const test = suite<Ctx>('saved filters over GraphQL', {} as Ctx);

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  await seed(ctx.server, 'saved', [spanRecord({ traceId: newTraceId(), name: 'one' })]);
  const r = await gql(ctx.server, '{ projects(first: 10) { edges { node { id name } } } }');
  ctx.projectGid = r.data.projects.edges.find((e: { node: { name: string } }) => e.node.name === 'saved').node.id;
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const gql = async (server: TestServer, query: string, variables: Record<string, unknown> = {}) =>
  (await callJson(server, 'POST', '/graphql', { query, variables })).body;

const SAVE = `mutation ($input: SaveFilterInput!) { saveFilter(input: $input) { id name subject condition search } }`;
const LIST = `query ($id: ID!, $s: FilterSubject) { node(id: $id) { ... on Project { savedFilters(subject: $s) { id name condition } } } }`;

test('a filter is saved, listed for its list, replaced under its name, and deleted', async ({ server, projectGid }) => {
  const first = await gql(server, SAVE, {
    input: { projectId: projectGid, name: 'slow LLM', subject: 'span', condition: "span_kind == 'LLM' and latency_ms > 5000" },
  });
  assert.not.ok(first.errors, JSON.stringify(first.errors));
  const again = await gql(server, SAVE, {
    input: { projectId: projectGid, name: 'slow LLM', subject: 'span', condition: 'latency_ms > 9000' },
  });
  assert.is(again.data.saveFilter.id, first.data.saveFilter.id, 'the same name keeps its id');
  const listed = await gql(server, LIST, { id: projectGid, s: 'span' });
  assert.equal(listed.data.node.savedFilters, [{ id: first.data.saveFilter.id, name: 'slow LLM', condition: 'latency_ms > 9000' }]);
  assert.equal((await gql(server, LIST, { id: projectGid, s: 'trace' })).data.node.savedFilters, []);
  const deleted = await gql(server, 'mutation ($id: ID!) { deleteSavedFilter(id: $id) { deletedIds } }', { id: first.data.saveFilter.id });
  assert.equal(deleted.data.deleteSavedFilter.deletedIds, [first.data.saveFilter.id]);
  assert.equal((await gql(server, LIST, { id: projectGid, s: null })).data.node.savedFilters, []);
});

test('a filter that cannot be read is refused with its position; an unknown project or filter is not found', async ({
  server,
  projectGid,
}) => {
  const bad = await gql(server, SAVE, { input: { projectId: projectGid, name: 'broken', subject: 'span', condition: 'latency_ms >' } });
  assert.is(bad.errors[0].extensions.code, 'invalid_filter');
  assert.match(bad.errors[0].message, 'at position 12');
  const nothing = await gql(server, SAVE, { input: { projectId: projectGid, name: 'empty', subject: 'span' } });
  assert.is(nothing.errors[0].extensions.code, 'invalid_condition');
  const gone = await gql(server, 'mutation { deleteSavedFilter(id: "nope") { deletedIds } }');
  assert.is(gone.errors[0].extensions.code, 'saved_filter_not_found');
});

test.run();
