import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '../../../domain/decider.ts';
import { httpSpec } from '../../support/httpSpec.ts';
import { callJson } from '../../support/restClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/** Editing and deleting examples (each a new version), what a version changed, and the list of splits. */

const test = suite<{ server: TestServer }>('dataset example changes over HTTP', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const types = (events: readonly DomainEvent[]) => events.map((e) => e.type);
type Example = { node_id: string; input: unknown; output: unknown; metadata: unknown; splits: string[] };

const dataset = async (server: TestServer, name: string) => {
  const up = (
    await callJson(server, 'POST', '/v1/datasets/upload?sync=true', {
      name,
      inputs: [{ q: 'one' }, { q: 'two' }, { q: 'three' }],
      outputs: [{ a: '1' }, { a: '2' }, { a: '3' }],
      splits: ['train', 'train', 'test'],
    })
  ).body.data;
  const examples = (await callJson(server, 'GET', `/v1/datasets/${up.dataset_id}/examples`)).body.data.examples as Example[];
  return { id: up.dataset_id as string, firstVersion: up.version_id as string, examples };
};

test('given a dataset, when one example is patched and another deleted, then one new version holds both changes', async ({ server }) => {
  const { id, firstVersion, examples } = await dataset(server, 'edit-me');
  const out = await httpSpec(server)
    .given()
    .when('POST', `/v1/datasets/${id}/versions`, {
      body: { description: 'fix the answer', patch: [{ id: examples[0]!.node_id, output: { a: 'uno' } }], delete: [examples[2]!.node_id] },
    })
    .then({
      status: 201,
      events: (events) => assert.equal(types(events), ['DatasetVersionCreated', 'DatasetExamplesPatched', 'DatasetExamplesDeleted']),
    });
  const data = (out.body as { data: Record<string, unknown> }).data;
  assert.equal([data.num_created_examples, data.num_updated_examples, data.num_deleted_examples], [0, 1, 1]);

  // The latest version shows the change; the first is as it was
  const latest = (await callJson(server, 'GET', `/v1/datasets/${id}/examples`)).body.data;
  assert.is(latest.version_id, data.version_id);
  assert.equal(
    latest.examples.map((e: Example) => [e.input, e.output]),
    [
      [{ q: 'one' }, { a: 'uno' }],
      [{ q: 'two' }, { a: '2' }],
    ],
  );
  const first = (await callJson(server, 'GET', `/v1/datasets/${id}/examples?version_id=${encodeURIComponent(firstVersion)}`)).body.data;
  assert.is(first.examples.length, 3);
  assert.equal(first.examples[0].output, { a: '1' });

  // The versions list counts what each version changed
  const versions = (await callJson(server, 'GET', `/v1/datasets/${id}/versions`)).body.data;
  assert.equal(
    versions.map((v: Record<string, unknown>) => [v.description, v.num_created_examples, v.num_updated_examples, v.num_deleted_examples]),
    [
      ['fix the answer', 0, 1, 1],
      [null, 3, 0, 0],
    ],
  );

  // And the version's changes show the patch with its content before, and the deleted example
  const changes = (await callJson(server, 'GET', `/v1/datasets/${id}/versions/${encodeURIComponent(data.version_id as string)}/changes`))
    .body;
  assert.equal(
    changes.data.changes.map((c: Record<string, unknown>) => [c.node_id, c.kind, c.output, c.before]),
    [
      [examples[0]!.node_id, 'patched', { a: 'uno' }, { input: { q: 'one' }, output: { a: '1' }, metadata: {} }],
      [examples[2]!.node_id, 'deleted', { a: '3' }, null],
    ],
  );
  assert.is(changes.next_cursor, null);
});

test('given a version with three new examples, when its changes are read two at a time, then the cursor gives the third', async ({
  server,
}) => {
  const { id, firstVersion } = await dataset(server, 'paged');
  const path = `/v1/datasets/${id}/versions/${encodeURIComponent(firstVersion)}/changes?limit=2`;
  const page1 = (await callJson(server, 'GET', path)).body;
  assert.equal(
    page1.data.changes.map((c: { kind: string; input: unknown }) => [c.kind, c.input]),
    [
      ['created', { q: 'one' }],
      ['created', { q: 'two' }],
    ],
  );
  assert.is(page1.data.num_created_examples, 3);
  const page2 = (await callJson(server, 'GET', `${path}&cursor=${encodeURIComponent(page1.next_cursor)}`)).body;
  assert.equal(
    page2.data.changes.map((c: { input: unknown }) => c.input),
    [{ q: 'three' }],
  );
  assert.is(page2.next_cursor, null);
});

test('given a dataset, when a patch changes nothing or names unknown examples, then a clear 4xx and no version', async ({ server }) => {
  const { id, examples } = await dataset(server, 'refusals');
  await httpSpec(server)
    .given()
    .when('POST', `/v1/datasets/${id}/versions`, { body: { patch: [{ id: examples[0]!.node_id, output: { a: '1' } }] } })
    .then({ status: 422, events: [] });
  const empty = await callJson(server, 'POST', `/v1/datasets/${id}/versions`, { patch: [] });
  assert.is(empty.status, 422);
  assert.match(JSON.stringify(empty.body), /patch or delete at least one example/);
  const notAnId = await callJson(server, 'POST', `/v1/datasets/${id}/versions`, { delete: ['nope'] });
  assert.is(notAnId.status, 422);
  assert.match(JSON.stringify(notAnId.body), /body\.patch\/delete\.0: \\"nope\\" is not a DatasetExample id/);
  const other = await dataset(server, 'other');
  const foreign = await callJson(server, 'POST', `/v1/datasets/${id}/versions`, { delete: [other.examples[0]!.node_id] });
  assert.is(foreign.status, 404);
  const twice = await callJson(server, 'POST', `/v1/datasets/${id}/versions`, {
    patch: [{ id: examples[1]!.node_id, input: { q: 'deux' } }],
    delete: [examples[1]!.node_id],
  });
  assert.is(twice.status, 400);
  assert.match(JSON.stringify(twice.body), /more than once in one version/);

  // An example deleted in an earlier version cannot be changed again
  assert.is((await callJson(server, 'POST', `/v1/datasets/${id}/versions`, { delete: [examples[0]!.node_id] })).status, 201);
  const gone = await callJson(server, 'POST', `/v1/datasets/${id}/versions`, { patch: [{ id: examples[0]!.node_id, input: { q: 'x' } }] });
  assert.is(gone.status, 404);
  assert.match(JSON.stringify(gone.body), /not in the latest version/);
  assert.is((await callJson(server, 'GET', `/v1/datasets/${id}/versions`)).body.data.length, 2);
});

test('given splits, when a dataset’s splits are listed, then every split with the count of this dataset’s examples; examples name theirs', async ({
  server,
}) => {
  const { id, examples } = await dataset(server, 'with-splits');
  assert.equal(
    examples.map((e) => e.splits),
    [['train'], ['train'], ['test']],
  );
  const created = await callJson(server, 'POST', `/v1/datasets/${id}/splits`, { name: 'hard', example_ids: [examples[1]!.node_id] });
  assert.is(created.status, 201);
  const splits = (await callJson(server, 'GET', `/v1/datasets/${id}/splits`)).body.data as { name: string; example_count: number }[];
  const counts = Object.fromEntries(splits.map((s) => [s.name, s.example_count]));
  assert.equal([counts.hard, counts.test, counts.train], [1, 1, 2]);
  const after = (await callJson(server, 'GET', `/v1/datasets/${id}/examples`)).body.data.examples as Example[];
  assert.equal(after[1]!.splits, ['hard', 'train']);

  // An example deleted in a later version no longer counts
  assert.is((await callJson(server, 'POST', `/v1/datasets/${id}/versions`, { delete: [examples[2]!.node_id] })).status, 201);
  const test_ = ((await callJson(server, 'GET', `/v1/datasets/${id}/splits`)).body.data as { name: string; example_count: number }[]).find(
    (s) => s.name === 'test',
  );
  assert.is(test_?.example_count, 0);
  assert.is((await callJson(server, 'GET', '/v1/datasets/nope/splits')).status, 404);
});

test.run();
