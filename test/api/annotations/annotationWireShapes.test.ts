import { readFile } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, seed } from '../../support/restClient.ts';
import { attrs, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Schema = { required?: string[]; properties: Record<string, unknown> };
type Ctx = { server: TestServer; schemas: Record<string, Schema> };
const test = suite<Ctx>('annotation wire shapes carry the reference OpenAPI fields', {} as Ctx);

const traceId = newTraceId();
const span = spanRecord({ traceId, attributes: attrs({ 'session.id': 'wire-session' }) });

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  const openapi = JSON.parse(await readFile(new URL('../../../docs/reference/phoenix-openapi.json', import.meta.url), 'utf8'));
  ctx.schemas = openapi.components.schemas;
  await seed(ctx.server, 'wire', [span]);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

/** Every required field is there, and no field the reference does not name. */
const fits = (schemas: Record<string, Schema>, name: string, value: Record<string, unknown>) => {
  const schema = schemas[name]!;
  for (const field of schema.required ?? []) assert.ok(field in value, `${name}: missing required "${field}" in ${JSON.stringify(value)}`);
  for (const field of Object.keys(value)) assert.ok(field in schema.properties, `${name}: "${field}" is not in the reference schema`);
};

test('listed span, trace and session annotations', async ({ server, schemas }) => {
  const post = (path: string, data: unknown) => callJson(server, 'POST', `${path}?sync=true`, { data: [data] });
  const base = {
    name: 'w',
    annotator_kind: 'HUMAN',
    result: { label: 'a', score: 1, explanation: 'e' },
    metadata: { k: 1 },
    identifier: 'i',
  };
  assert.is((await post('/v1/span_annotations', { ...base, span_id: span.spanId })).status, 200);
  assert.is((await post('/v1/trace_annotations', { ...base, trace_id: traceId })).status, 200);
  assert.is((await post('/v1/session_annotations', { ...base, session_id: 'wire-session' })).status, 200);
  for (const [path, ids, schema, result] of [
    ['span_annotations', `span_ids=${span.spanId}`, 'SpanAnnotation', 'SpanAnnotationsResponseBody'],
    ['trace_annotations', `trace_ids=${traceId}`, 'TraceAnnotation', 'TraceAnnotationsResponseBody'],
    ['session_annotations', 'session_ids=wire-session', 'SessionAnnotation', 'SessionAnnotationsResponseBody'],
  ] as const) {
    const r = await callJson(server, 'GET', `/v1/projects/wire/${path}?${ids}`);
    assert.is(r.status, 200, r.text);
    fits(schemas, result, r.body);
    assert.is(r.body.data.length, 1);
    fits(schemas, schema, r.body.data[0]);
    fits(schemas, 'AnnotationResult', r.body.data[0].result);
  }
});

test('annotation configs of each type, and the project set', async ({ server, schemas }) => {
  for (const [body, schema] of [
    [
      { name: 'wc', type: 'CATEGORICAL', optimization_direction: 'NONE', values: [{ label: 'a', score: null }] },
      'CategoricalAnnotationConfig',
    ],
    [{ name: 'wn', type: 'CONTINUOUS', optimization_direction: 'MAXIMIZE', lower_bound: 0 }, 'ContinuousAnnotationConfig'],
    [{ name: 'wf', type: 'FREEFORM' }, 'FreeformAnnotationConfig'],
  ] as const) {
    const r = await callJson(server, 'POST', '/v1/annotation_configs', body);
    assert.is(r.status, 200, r.text);
    fits(schemas, 'CreateAnnotationConfigResponseBody', r.body);
    fits(schemas, schema, r.body.data);
  }
  const list = await callJson(server, 'GET', '/v1/annotation_configs');
  fits(schemas, 'GetAnnotationConfigsResponseBody', list.body);
  const set = await callJson(server, 'PUT', '/v1/projects/wire/annotation_configs', {
    annotation_config_ids: list.body.data.map((c: { id: string }) => c.id),
  });
  fits(schemas, 'SetProjectAnnotationConfigsResponseBody', set.body);
  assert.is(set.body.data.length, 3);
});

test.run();
