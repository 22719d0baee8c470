import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '../../../domain/decider.ts';
import { httpSpec } from '../../support/httpSpec.ts';
import { callJson } from '../../support/restClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer }>('datasets over HTTP', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const form = (fields: Record<string, string | string[]>, file: { text: string; type: string; name?: string }): FormData => {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) data.append(k, x);
  data.append('file', new Blob([file.text], { type: file.type }), file.name ?? 'upload');
  return data;
};
const postForm = async (server: TestServer, data: FormData, query = '?sync=true') => {
  const response = await fetch(`${server.baseUrl}/v1/datasets/upload${query}`, { method: 'POST', body: data });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
};
const types = (events: readonly DomainEvent[]) => events.map((e) => e.type);
const examplesOf = async (server: TestServer, datasetId: string, query = '') =>
  (await callJson(server, 'GET', `/v1/datasets/${datasetId}/examples${query}`)).body;

test('given nothing, when a JSON upload creates a dataset, then one version holds the examples with splits and source spans', async ({
  server,
}) => {
  const out = await httpSpec(server)
    .given()
    .when('POST', '/v1/datasets/upload?sync=true', {
      body: {
        action: 'create',
        name: 'qa',
        description: 'questions',
        inputs: [{ q: 'one' }, { q: 'two' }],
        outputs: [{ a: '1' }, { a: '2' }],
        metadata: [{ m: 1 }, {}],
        splits: ['train', ['test', null]],
        span_ids: ['abcdef0123456789', null],
        example_ids: ['ext-1', null],
      },
    })
    .then({
      status: 200,
      events: (events) =>
        assert.equal(types(events), [
          'DatasetExamplesStaged',
          'DatasetSplitCreated',
          'DatasetSplitCreated',
          'DatasetNameClaimed',
          'DatasetCreated',
          'DatasetVersionCreated',
        ]),
    });
  const data = (out.body as { data: Record<string, unknown> }).data;
  assert.is(data.num_created_examples, 2);
  const examples = await examplesOf(server, data.dataset_id as string);
  assert.is(examples.data.version_id, data.version_id);
  assert.equal(
    examples.data.examples.map((e: Record<string, unknown>) => [e.id === e.node_id, e.input, e.output, e.metadata, e.source]),
    [
      [false, { q: 'one' }, { a: '1' }, { m: 1 }, { span_id: 'abcdef0123456789', span_node_id: null }],
      [true, { q: 'two' }, { a: '2' }, {}, null],
    ],
  );
  assert.is(examples.data.examples[0].id, 'ext-1');
  const train = await examplesOf(server, data.dataset_id as string, '?split=train');
  assert.equal(train.data.filtered_splits, ['train']);
  assert.is(train.data.examples.length, 1);
  const dataset = await callJson(server, 'GET', `/v1/datasets/${data.dataset_id}`);
  assert.equal([dataset.body.data.name, dataset.body.data.description, dataset.body.data.example_count], ['qa', 'questions', 2]);
});

test('given a dataset, when the same name is created again, then 409 and nothing is appended', async ({ server }) => {
  await callJson(server, 'POST', '/v1/datasets/upload?sync=true', { name: 'dup', inputs: [{ x: 1 }] });
  await httpSpec(server)
    .given()
    .when('POST', '/v1/datasets/upload?sync=true', { body: { action: 'create', name: 'dup', inputs: [{ x: 2 }] } })
    .then({ status: 409, events: [] });
});

test('given a dataset, when examples are appended, then a new version adds only the new content and older versions stay as they were', async ({
  server,
}) => {
  const first = (await callJson(server, 'POST', '/v1/datasets/upload?sync=true', { name: 'grow', inputs: [{ x: 1 }] })).body.data;
  const second = (
    await callJson(server, 'POST', '/v1/datasets/upload?sync=true', { action: 'append', name: 'grow', inputs: [{ x: 1 }, { x: 2 }] })
  ).body.data;
  assert.is(second.dataset_id, first.dataset_id);
  assert.is(second.num_created_examples, 1);
  assert.is.not(second.version_id, first.version_id);
  const again = (await callJson(server, 'POST', '/v1/datasets/upload?sync=true', { action: 'append', name: 'grow', inputs: [{ x: 2 }] }))
    .body.data;
  assert.equal([again.version_id, again.num_created_examples], [second.version_id, 0], 'an append that changes nothing makes no version');
  assert.is((await examplesOf(server, first.dataset_id)).data.examples.length, 2);
  assert.is((await examplesOf(server, first.dataset_id, `?version_id=${encodeURIComponent(first.version_id)}`)).data.examples.length, 1);
  const versions = await callJson(server, 'GET', `/v1/datasets/${first.dataset_id}/versions`);
  assert.equal(
    versions.body.data.map((v: { version_id: string }) => v.version_id),
    [second.version_id, first.version_id],
  );
});

test('given a CSV file, when it is uploaded as multipart with keys, then its rows become examples; exports give them back', async ({
  server,
}) => {
  const csv = 'question,answer,topic,split,span\nwhat?,"{""a"": 1}",x,train,\nwhy?,because,,"[""test"", ""train""]",\n';
  const out = await postForm(
    server,
    form(
      {
        name: 'from-csv',
        'input_keys[]': 'question',
        'output_keys[]': 'answer',
        'metadata_keys[]': 'topic',
        split_key: 'split',
        span_id_key: 'span',
      },
      { text: csv, type: 'text/csv', name: 'qa.csv' },
    ),
  );
  assert.is(out.status, 200, JSON.stringify(out.body));
  const id = out.body.data.dataset_id;
  const examples = (await examplesOf(server, id)).data.examples;
  assert.equal(
    examples.map((e: Record<string, unknown>) => [e.input, e.output, e.metadata]),
    [
      [{ question: 'what?' }, { answer: { a: 1 } }, { topic: 'x' }],
      [{ question: 'why?' }, { answer: 'because' }, {}],
    ],
  );
  assert.is((await callJson(server, 'GET', `/v1/datasets/${id}`)).body.data.description, 'qa.csv');
  assert.is((await examplesOf(server, id, '?split=test')).data.examples.length, 1);
  const jsonl = await (await fetch(`${server.baseUrl}/v1/datasets/${id}/jsonl`)).text();
  assert.equal(
    jsonl
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).splits),
    [['train'], ['test', 'train']],
  );
  const exported = await fetch(`${server.baseUrl}/v1/datasets/${id}/csv`);
  assert.match(exported.headers.get('content-disposition') ?? '', "filename*=UTF-8''from-csv.csv");
  assert.is((await exported.text()).split('\n')[0], 'id,node_id,input.question,metadata.topic,output.answer,output.answer.a,splits');
});

test('given a CSV without a named column, when it is uploaded, then 400 names the column and no dataset exists', async ({ server }) => {
  const out = await postForm(
    server,
    form({ name: 'broken-csv', 'input_keys[]': ['question', 'context'] }, { text: 'question\nq\n', type: 'text/csv' }),
  );
  assert.is(out.status, 400);
  assert.match(out.body.detail, '"context"');
  assert.equal((await callJson(server, 'GET', '/v1/datasets?name=broken-csv')).body.data, []);
});

test('given a JSONL file with a malformed line, when it is uploaded, then 400 names the line and no half dataset is left', async ({
  server,
}) => {
  const good = Array.from({ length: 1200 }, (_, i) => JSON.stringify({ q: `q${i}`, a: i })).join('\n');
  const out = await postForm(
    server,
    form(
      { name: 'broken-jsonl', 'input_keys[]': 'q', 'output_keys[]': 'a' },
      { text: `${good}\n{"q": "oops"\n`, type: 'application/jsonl' },
    ),
  );
  assert.is(out.status, 400);
  assert.match(out.body.detail, 'line 1201');
  assert.equal((await callJson(server, 'GET', '/v1/datasets?name=broken-jsonl')).body.data, []);
});

test('bad input: unknown version 404, not a GlobalID 422, unknown action 422 with the reference text, no content type 400', async ({
  server,
}) => {
  const id = (await callJson(server, 'POST', '/v1/datasets/upload?sync=true', { name: 'bad-input', inputs: [{ x: 1 }] })).body.data
    .dataset_id;
  const unknownVersion = await callJson(
    server,
    'GET',
    `/v1/datasets/${id}/examples?version_id=${encodeURIComponent(Buffer.from('DatasetVersion:999').toString('base64'))}`,
  );
  assert.is(unknownVersion.status, 404);
  assert.is((await callJson(server, 'GET', '/v1/datasets/not-an-id')).status, 422);
  assert.is((await callJson(server, 'GET', `/v1/datasets/${Buffer.from('Dataset:999').toString('base64')}`)).status, 404);
  const action = await callJson(server, 'POST', '/v1/datasets/upload', { action: 'merge', name: 'x', inputs: [{}] });
  assert.equal([action.status, action.body.detail], [422, 'Invalid dateset action: merge']);
  const lengths = await callJson(server, 'POST', '/v1/datasets/upload', { name: 'x', inputs: [{}], outputs: [] });
  assert.is(lengths.status, 422);
  assert.match(lengths.body.detail, 'body.outputs');
  const bare = await fetch(`${server.baseUrl}/v1/datasets/upload`, { method: 'POST', body: new Uint8Array([1]) });
  assert.is(bare.status, 400);
  const nul = await callJson(server, 'POST', '/v1/datasets/upload?sync=true', { name: 'nul', inputs: [{ 'k\u0000': 'v\u0000\ud800' }] });
  assert.is(nul.status, 200, 'NUL characters are made storable, not refused');
  const stored = (await examplesOf(server, nul.body.data.dataset_id)).data.examples[0].input;
  assert.equal(stored, { 'k\ufffd': 'v\ufffd\ufffd' });
});

test('hostile uploads are 4xx naming the problem, never 500, and leave no dataset', async ({ server }) => {
  const fileFirst = new FormData();
  fileFirst.append('file', new Blob(['q\nx\n'], { type: 'text/csv' }), 'a.csv');
  fileFirst.append('name', 'file-first');
  const ragged = form({ name: 'ragged', 'input_keys[]': 'q' }, { text: 'q,a\nx,1\ny,2,3\n', type: 'text/csv' });
  const pdf = form({ name: 'pdf', 'input_keys[]': 'q' }, { text: '%PDF', type: 'application/pdf' });
  const noFile = new FormData();
  noFile.append('name', 'no-file');
  const outcomes = [
    await postForm(server, fileFirst),
    await postForm(server, ragged),
    await postForm(server, pdf),
    await postForm(server, noFile),
  ];
  assert.equal(
    outcomes.map((o) => o.status),
    [422, 400, 415, 422],
  );
  assert.match(outcomes[1]!.body.detail, 'line 3');
  const garbage = await fetch(`${server.baseUrl}/v1/datasets/upload`, {
    method: 'POST',
    headers: { 'content-type': 'multipart/form-data; boundary=zzz' },
    body: 'not multipart at all',
  });
  assert.ok(garbage.status >= 400 && garbage.status < 500, String(garbage.status));
  for (const name of ['file-first', 'ragged', 'pdf', 'no-file'])
    assert.equal((await callJson(server, 'GET', `/v1/datasets?name=${name}`)).body.data, [], name);
});

test('labels and splits: create, attach, list, patch membership, delete', async ({ server }) => {
  const up = (await callJson(server, 'POST', '/v1/datasets/upload?sync=true', { name: 'labelled', inputs: [{ x: 1 }, { x: 2 }] })).body
    .data;
  const label = await callJson(server, 'POST', '/v1/dataset_labels', { name: 'gold', color: '#AABBCC' });
  assert.equal([label.status, label.body.data.color], [201, '#aabbcc']);
  assert.is((await callJson(server, 'POST', '/v1/dataset_labels', { name: 'gold', color: '#aabbcc' })).status, 409);
  const set = await callJson(server, 'PUT', '/v1/datasets/labelled/labels', { dataset_label_ids: [label.body.data.id] });
  assert.equal(
    set.body.data.map((l: { name: string }) => l.name),
    ['gold'],
  );
  const examples = (await examplesOf(server, up.dataset_id)).data.examples;
  const split = await callJson(server, 'POST', '/v1/datasets/labelled/splits', { name: 'holdout', example_ids: [examples[0].node_id] });
  assert.equal([split.status, split.body.data.example_count, split.body.data.color], [201, 1, '#33c5e8']);
  const patched = await callJson(server, 'PATCH', `/v1/datasets/labelled/splits/${split.body.data.id}`, {
    add_example_ids: [examples[1].node_id],
    remove_example_ids: [examples[0].node_id],
    description: 'kept apart',
  });
  assert.equal([patched.status, patched.body.data.example_count, patched.body.data.description], [200, 1, 'kept apart']);
  assert.is((await examplesOf(server, up.dataset_id, '?split=holdout')).data.examples[0].node_id, examples[1].node_id);
  assert.is((await callJson(server, 'DELETE', `/v1/datasets/labelled/splits/${split.body.data.id}`)).status, 204);
  assert.is((await examplesOf(server, up.dataset_id, '?split=holdout')).status, undefined);
  assert.is((await callJson(server, 'DELETE', `/v1/datasets/labelled/labels/${label.body.data.id}`)).status, 204);
  assert.equal((await callJson(server, 'GET', '/v1/datasets/labelled/labels')).body.data, []);
});

test('given a dataset with an experiment, when the dataset is deleted, then both are gone and the name is free again', async ({
  server,
}) => {
  const up = (await callJson(server, 'POST', '/v1/datasets/upload?sync=true', { name: 'doomed', inputs: [{ x: 1 }] })).body.data;
  const experiment = (await callJson(server, 'POST', `/v1/datasets/${up.dataset_id}/experiments`, {})).body.data;
  await httpSpec(server)
    .given()
    .when('DELETE', `/v1/datasets/${up.dataset_id}`)
    .then({ status: 204, events: (events) => assert.equal(types(events), ['DatasetDeleted', 'DatasetNameReleased']) });
  assert.is((await callJson(server, 'GET', `/v1/experiments/${experiment.id}`)).status, 404);
  assert.is((await callJson(server, 'GET', `/v1/datasets/${up.dataset_id}`)).status, 404);
  assert.is((await callJson(server, 'POST', '/v1/datasets/upload?sync=true', { name: 'doomed', inputs: [{ x: 1 }] })).status, 200);
});

test.run();
