import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson } from '../../support/restClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { dataOf, errorCodes, gql } from './gqlClient.ts';

/** The read side of datasets over GraphQL: the list, versions, examples at a version, experiments, node(id:). */

type Ctx = { server: TestServer; datasetId: string; v1: string; v2: string; nodeIds: string[]; experimentId: string };
const test = suite<Ctx>('GraphQL datasets', {} as Ctx);

// Given a dataset "qa" whose version 2 edits its first example and deletes its third, and an experiment on version 1
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  const up = (
    await callJson(ctx.server, 'POST', '/v1/datasets/upload?sync=true', {
      name: 'qa',
      description: 'questions',
      inputs: [{ q: 'one' }, { q: 'two' }, { q: 'three' }],
      outputs: [{ a: '1' }, { a: '2' }, { a: '3' }],
      splits: ['train', null, null],
      example_ids: ['ext-1', null, null],
    })
  ).body.data;
  ctx.datasetId = up.dataset_id;
  ctx.v1 = up.version_id;
  const examples = (await callJson(ctx.server, 'GET', `/v1/datasets/${ctx.datasetId}/examples`)).body.data.examples;
  ctx.nodeIds = examples.map((e: { node_id: string }) => e.node_id);
  const experiment = (await callJson(ctx.server, 'POST', `/v1/datasets/${ctx.datasetId}/experiments`, { name: 'base', repetitions: 2 }))
    .body.data;
  ctx.experimentId = experiment.id;
  const edit = await callJson(ctx.server, 'POST', `/v1/datasets/${ctx.datasetId}/versions`, {
    description: 'edit',
    patch: [{ id: ctx.nodeIds[0], output: { a: 'uno' } }],
    delete: [ctx.nodeIds[2]],
  });
  ctx.v2 = edit.body.data.version_id;
});

test.after(async (ctx) => {
  await ctx.server.close();
});

const DATASETS = `query($version: ID) {
  datasets(first: 10) {
    edges { node {
      id name description exampleCount
      versions { edges { node { id description } } }
      examples(datasetVersionId: $version) { edges { node { id externalId revision { input output revisionKind } datasetSplits { name } } } }
      experiments { edges { node { id name repetitions expectedRunCount runCount datasetVersion { id } dataset { name } } } }
      labels { name }
      splits { name }
    } }
  }
}`;

test('when the datasets are read, then each with its versions, its examples at the latest version and its experiments', async ({
  server,
  datasetId,
  v1,
  v2,
  nodeIds,
  experimentId,
}) => {
  const [dataset] = dataOf(await gql(server, DATASETS)).datasets.edges.map((e: { node: unknown }) => e.node);
  assert.equal([dataset.id, dataset.name, dataset.description, dataset.exampleCount], [datasetId, 'qa', 'questions', 2]);
  assert.equal(
    dataset.versions.edges.map((e: { node: { id: string; description: string | null } }) => [e.node.id, e.node.description]),
    [
      [v2, 'edit'],
      [v1, null],
    ],
  );
  assert.equal(
    dataset.examples.edges.map((e: { node: Record<string, any> }) => [
      e.node.id,
      e.node.externalId,
      e.node.revision.output,
      e.node.revision.revisionKind,
      e.node.datasetSplits.map((s: { name: string }) => s.name),
    ]),
    [
      [nodeIds[0], 'ext-1', { a: 'uno' }, 'PATCH', ['train']],
      [nodeIds[1], null, { a: '2' }, 'CREATE', []],
    ],
  );
  assert.equal(dataset.experiments.edges[0].node, {
    id: experimentId,
    name: 'base',
    repetitions: 2,
    expectedRunCount: 6,
    runCount: 0,
    datasetVersion: { id: v1 },
    dataset: { name: 'qa' },
  });
  assert.equal(dataset.splits, [{ name: 'train' }]);
  assert.equal(dataset.labels, []);
});

test('when the examples are read at version 1, then the three as they were', async ({ server, v1 }) => {
  const [dataset] = dataOf(await gql(server, DATASETS, { version: v1 })).datasets.edges.map((e: { node: unknown }) => e.node);
  assert.equal(
    dataset.examples.edges.map((e: { node: { revision: { output: unknown } } }) => e.node.revision.output),
    [{ a: '1' }, { a: '2' }, { a: '3' }],
  );
});

test('when examples are paged one at a time, then the cursor walks them in order', async ({ server, v1, nodeIds }) => {
  const page = async (after: string | null) =>
    dataOf(
      await gql(
        server,
        `query($v: ID, $after: String) { datasets { edges { node { examples(datasetVersionId: $v, first: 1, after: $after) {
          edges { node { id } } pageInfo { hasNextPage endCursor } } } } } }`,
        { v: v1, after },
      ),
    ).datasets.edges[0].node.examples;
  const seen: string[] = [];
  let after: string | null = null;
  for (let i = 0; i < 3; i++) {
    const p: any = await page(after);
    seen.push(p.edges[0].node.id);
    assert.is(p.pageInfo.hasNextPage, i < 2);
    after = p.pageInfo.endCursor;
  }
  assert.equal(seen, nodeIds);
});

test('when datasets, versions, examples and experiments are fetched by node(id:), then each is found; a deleted example shows DELETE', async ({
  server,
  datasetId,
  v2,
  nodeIds,
  experimentId,
}) => {
  const node = async (id: string, fields: string) =>
    dataOf(await gql(server, `query($id: ID!) { node(id: $id) { id ${fields} } }`, { id })).node;
  assert.equal(await node(datasetId, '... on Dataset { name }'), { id: datasetId, name: 'qa' });
  assert.equal(await node(v2, '... on DatasetVersion { description }'), { id: v2, description: 'edit' });
  assert.equal(await node(experimentId, '... on Experiment { name projectName }').then((n: any) => n.name), 'base');
  const deleted = await node(nodeIds[2]!, '... on DatasetExample { revision { revisionKind input } }');
  assert.equal(deleted.revision, { revisionKind: 'DELETE', input: { q: 'three' } });
  const before = await node(nodeIds[0]!, `... on DatasetExample { revision(datasetVersionId: ${JSON.stringify(v2)}) { output } }`);
  assert.equal(before.revision.output, { a: 'uno' });
  const missing = await gql(server, 'query($id: ID!) { node(id: $id) { id } }', {
    id: Buffer.from('DatasetExample:9999').toString('base64'),
  });
  assert.equal(errorCodes(missing), ['node_not_found']);
});

test('when another dataset’s version is asked for, then a not-found error naming it', async ({ server }) => {
  const other = (await callJson(server, 'POST', '/v1/datasets/upload?sync=true', { name: 'other', inputs: [{ x: 1 }] })).body.data;
  const reply = await gql(
    server,
    `query($v: ID) { datasets(first: 10) { edges { node { name examples(datasetVersionId: $v) { edges { node { id } } } } } } }`,
    { v: other.version_id },
  );
  assert.equal(errorCodes(reply), ['dataset_version_not_found']);
});

test.run();
