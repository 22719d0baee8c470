import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '../../../domain/decider.ts';
import { httpSpec } from '../../support/httpSpec.ts';
import { callJson } from '../../support/restClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer }>('annotation configs over HTTP', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  assert.is((await callJson(ctx.server, 'POST', '/v1/projects', { name: 'configured' })).status, 200);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const categorical = (
  name: string,
  values = [
    { label: 'good', score: 1 },
    { label: 'bad', score: 0 },
  ],
) => ({
  name,
  type: 'CATEGORICAL',
  description: 'is it right?',
  optimization_direction: 'MAXIMIZE',
  values,
});

test('given nothing, when a categorical config is created, then one event and the config with a typed GlobalID', async ({ server }) => {
  const out = await httpSpec(server)
    .given()
    .when('POST', '/v1/annotation_configs', { body: categorical('quality') })
    .then({
      status: 200,
      events: (events: readonly DomainEvent[]) => {
        assert.is(events.length, 1);
        assert.is(events[0]!.type, 'AnnotationConfigCreated');
        assert.equal((events[0]!.data as { config: unknown }).config, {
          type: 'CATEGORICAL',
          name: 'quality',
          description: 'is it right?',
          optimizationDirection: 'MAXIMIZE',
          values: [
            { label: 'good', score: 1 },
            { label: 'bad', score: 0 },
          ],
        });
      },
    });
  const data = (out.body as { data: Record<string, unknown> }).data;
  assert.match(Buffer.from(String(data.id), 'base64').toString(), /^CategoricalAnnotationConfig:\d+$/);
  assert.equal({ ...data, id: 'x' }, { id: 'x', ...categorical('quality') });
  const byName = await callJson(server, 'GET', '/v1/annotation_configs/quality');
  assert.equal(byName.body.data, data);
  const byId = await callJson(server, 'GET', `/v1/annotation_configs/${encodeURIComponent(String(data.id))}`);
  assert.equal(byId.body.data, data);
});

test('continuous and freeform configs round-trip; PUT replaces; DELETE answers 200 with what it deleted', async ({ server }) => {
  const created = await callJson(server, 'POST', '/v1/annotation_configs', {
    name: 'latency-score',
    type: 'CONTINUOUS',
    optimization_direction: 'MINIMIZE',
    lower_bound: 0,
    upper_bound: 10,
  });
  assert.is(created.status, 200, created.text);
  assert.equal(created.body.data.lower_bound, 0);
  const id = encodeURIComponent(created.body.data.id);
  const replaced = await callJson(server, 'PUT', `/v1/annotation_configs/${id}`, {
    name: 'latency-score',
    type: 'FREEFORM',
    description: 'free text now',
    threshold: 0.5,
  });
  assert.is(replaced.status, 200, replaced.text);
  assert.equal(
    { ...replaced.body.data, id: 'x' },
    {
      id: 'x',
      name: 'latency-score',
      type: 'FREEFORM',
      description: 'free text now',
      optimization_direction: null,
      threshold: 0.5,
      lower_bound: null,
      upper_bound: null,
    },
  );
  const deleted = await callJson(server, 'DELETE', `/v1/annotation_configs/${id}`);
  assert.is(deleted.status, 200);
  assert.is(deleted.body.data.name, 'latency-score');
  assert.is((await callJson(server, 'GET', `/v1/annotation_configs/${id}`)).status, 404);
});

test('rules: labels unique, bounds ordered, a known direction, names unique and not "note"', async ({ server }) => {
  const cases: [unknown, number, string][] = [
    [
      categorical('dup', [
        { label: 'a', score: 1 },
        { label: 'a', score: 0 },
      ]),
      400,
      'values.1.label',
    ],
    [categorical('empty', []), 400, 'values'],
    [{ name: 'bounds', type: 'CONTINUOUS', optimization_direction: 'NONE', lower_bound: 5, upper_bound: 1 }, 400, 'lower_bound'],
    [{ name: 'dir', type: 'CONTINUOUS', optimization_direction: 'SIDEWAYS' }, 422, 'optimization_direction'],
    [{ name: 'nodir', type: 'CATEGORICAL', values: [{ label: 'a' }] }, 422, 'optimization_direction'],
    [{ name: 'kind', type: 'ORDINAL', optimization_direction: 'NONE' }, 422, 'body.type'],
    [categorical('note'), 409, 'reserved'],
    [categorical('quality-dup'), 200, ''],
    [categorical('quality-dup'), 409, 'already exists'],
    [categorical('nul\u0000name'), 400, 'name'],
  ];
  for (const [body, status, words] of cases) {
    const r = await callJson(server, 'POST', '/v1/annotation_configs', body);
    assert.is(r.status, status, `${JSON.stringify(body)}: ${r.text}`);
    if (words) assert.ok(r.body.detail.includes(words), `${JSON.stringify(body)}: ${r.body.detail}`);
  }
});

test('project assignment: set the whole list, assign, unassign, list; an unknown config id is a 422 naming its index', async ({
  server,
}) => {
  const a = (await callJson(server, 'POST', '/v1/annotation_configs', categorical('assign-a'))).body.data.id as string;
  const b = (await callJson(server, 'POST', '/v1/annotation_configs', { name: 'assign-b', type: 'FREEFORM' })).body.data.id as string;
  const set = await callJson(server, 'PUT', '/v1/projects/configured/annotation_configs', { annotation_config_ids: [a, b] });
  assert.is(set.status, 200, set.text);
  assert.equal(
    set.body.data.map((c: { name: string }) => c.name),
    ['assign-b', 'assign-a'],
  );
  assert.is(set.body.next_cursor, null);
  const unknown = await callJson(server, 'PUT', '/v1/projects/configured/annotation_configs', {
    annotation_config_ids: [a, 'Q2F0ZWdvcmljYWxBbm5vdGF0aW9uQ29uZmlnOjk5OTk='],
  });
  assert.is(unknown.status, 422, unknown.text);
  assert.ok(unknown.body.detail.includes('body.annotation_config_ids.1'), unknown.body.detail);
  assert.is((await callJson(server, 'DELETE', `/v1/projects/configured/annotation_configs/assign-b`)).status, 204);
  assert.is((await callJson(server, 'DELETE', `/v1/projects/configured/annotation_configs/assign-b`)).status, 204);
  const listed = await callJson(server, 'GET', '/v1/projects/configured/annotation_configs');
  assert.equal(
    listed.body.data.map((c: { name: string }) => c.name),
    ['assign-a'],
  );
  const assigned = await callJson(server, 'PUT', `/v1/projects/configured/annotation_configs/${encodeURIComponent(b)}`);
  assert.is(assigned.status, 200, assigned.text);
  assert.is(assigned.body.data.name, 'assign-b');
  const page1 = await callJson(server, 'GET', '/v1/projects/configured/annotation_configs?limit=1');
  assert.is(page1.body.data.length, 1);
  const page2 = await callJson(
    server,
    'GET',
    `/v1/projects/configured/annotation_configs?limit=1&cursor=${encodeURIComponent(page1.body.next_cursor)}`,
  );
  assert.equal(
    [...page1.body.data, ...page2.body.data].map((c: { name: string }) => c.name),
    ['assign-b', 'assign-a'],
  );
  assert.is((await callJson(server, 'GET', '/v1/projects/nowhere/annotation_configs')).status, 404);
  assert.is((await callJson(server, 'PUT', '/v1/projects/configured/annotation_configs/no-such-config')).status, 404);
  // Deleting the project drops its assignments; the configs stay.
  assert.is((await callJson(server, 'DELETE', '/v1/projects/configured')).status, 204);
  assert.is((await callJson(server, 'GET', '/v1/annotation_configs/assign-a')).status, 200);
});

test.run();
