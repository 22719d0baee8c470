import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { httpSpec } from '../../support/httpSpec.ts';
import { callJson, seed } from '../../support/restClient.ts';
import { attrs, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer }>(
  'annotations: bad input is a 4xx naming the field, never a 500, never partly stored',
  {} as { server: TestServer },
);
const span = spanRecord({
  traceId: newTraceId(),
  attributes: attrs({ 'retrieval.documents.0.document.id': 'd0', 'retrieval.documents.1.document.id': 'd1' }),
});
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  await seed(ctx.server, 'bad-input', [span]);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const good = (over: Record<string, unknown> = {}) => ({
  span_id: span.spanId,
  name: 'quality',
  annotator_kind: 'LLM',
  result: { label: 'good', score: 0.9 },
  ...over,
});

/** POSTs and expects a 422 whose detail names `field`, with nothing appended. */
const refused =
  (path: string, body: unknown, field: string | RegExp, status = 422) =>
  async ({ server }: { server: TestServer }) => {
    await httpSpec(server)
      .given()
      .when('POST', path, { body })
      .then({
        status,
        events: [],
        body: (b: { detail: string; code: string }) => {
          if (typeof field === 'string') assert.ok(b.detail.includes(field), `detail "${b.detail}" should name ${field}`);
          else assert.match(b.detail, field);
        },
      });
  };

test(
  'an unknown annotator kind → 422 naming it',
  refused('/v1/span_annotations', { data: [good({ annotator_kind: 'ROBOT' })] }, 'body.data.0.annotator_kind'),
);
test(
  'a score that is not a number → 422 naming it',
  refused('/v1/span_annotations', { data: [good({ result: { score: 'high' } })] }, 'body.data.0.result.score'),
);
test(
  'label, score and explanation all missing → 422 naming result',
  refused('/v1/span_annotations', { data: [good({ result: { label: null } })] }, 'body.data.0.result'),
);
test(
  'no result at all → 422 naming result',
  refused('/v1/trace_annotations', { data: [{ trace_id: 'abc', name: 'x', annotator_kind: 'HUMAN' }] }, 'body.data.0.result'),
);
test(
  'a document position below 0 → 422 naming it',
  refused('/v1/document_annotations', { data: [{ ...good(), document_position: -1 }] }, 'body.data.0.document_position'),
);
test(
  'a fractional document position → 422 naming it',
  refused('/v1/document_annotations', { data: [{ ...good(), document_position: 1.5 }] }, 'body.data.0.document_position'),
);
test(
  'a document annotation with an identifier → 422 naming it',
  refused('/v1/document_annotations', { data: [{ ...good(), document_position: 0, identifier: 'x' }] }, 'body.data.0.identifier'),
);
test(
  'the reserved name "note" on the annotations route → 422 naming it',
  refused('/v1/span_annotations', { data: [good({ name: 'note' })] }, 'body.data.0.name'),
);
test(
  'an empty name → 422 naming it',
  refused(
    '/v1/session_annotations',
    { data: [{ session_id: 's', name: ' ', annotator_kind: 'HUMAN', result: { score: 1 } }] },
    'body.data.0.name',
  ),
);
test(
  'a name over 1 KiB → 422 naming it',
  refused('/v1/span_annotations', { data: [good({ name: 'n'.repeat(2000) })] }, 'body.data.0.name'),
);
test('an empty span id → 422 naming it', refused('/v1/span_annotations', { data: [good({ span_id: '  ' })] }, 'body.data.0.span_id'));
test(
  'metadata that is not an object → 422 naming it',
  refused('/v1/span_annotations', { data: [good({ metadata: [1, 2] })] }, 'body.data.0.metadata'),
);
test('data that is not a list → 422 naming it', refused('/v1/span_annotations', { data: good() }, 'body.data'));
test(
  'a batch of 1,000 with one bad entry is refused whole, naming its index',
  refused(
    '/v1/span_annotations',
    { data: Array.from({ length: 1000 }, (_, i) => (i === 637 ? good({ result: { score: 'x' } }) : good({ identifier: `i${i}` }))) },
    'body.data.637.result.score',
  ),
);
test(
  'a batch whose bad entry only the domain catches is refused whole too',
  refused('/v1/span_annotations', { data: [good(), good({ identifier: 'b' }), good({ result: {} })] }, 'body.data.2.result'),
);
test(
  'with sync=true, a document position beyond the span’s documents → 422 naming it',
  refused(
    '/v1/document_annotations?sync=true',
    {
      data: [
        { ...good(), document_position: 1 },
        { ...good(), document_position: 2 },
      ],
    },
    'body.data.1.document_position',
  ),
);
test(
  'with sync=true, a broken annotation is a 422 before any target lookup (not a 404)',
  refused(
    '/v1/span_annotations?sync=true',
    { data: [good({ span_id: 'ffffffffffffffff' }), good({ span_id: ' ' })] },
    'body.data.1.span_id',
  ),
);
test('an empty note → 422 naming it', refused('/v1/span_notes', { data: { span_id: span.spanId, note: '   ' } }, 'body.data.note'));
test(
  'a note on a span that does not exist → 404',
  refused('/v1/span_notes', { data: { span_id: 'ffffffffffffffff', note: 'x' } }, /do not exist/, 404),
);
test('sync=maybe → 422 naming it', refused('/v1/span_annotations?sync=maybe', { data: [good()] }, 'query.sync'));

test('text Postgres cannot hold is stored with U+FFFD instead, and reads back', async ({ server }) => {
  const r = await callJson(server, 'POST', '/v1/span_annotations?sync=true', {
    data: [
      good({
        name: 'odd\u0000name',
        result: { label: 'a\u0000b', explanation: 'lone \ud800 surrogate' },
        metadata: { 'k\u0000': 'v\u0000' },
      }),
    ],
  });
  assert.is(r.status, 200, r.text);
  const listed = await callJson(
    server,
    'GET',
    `/v1/projects/bad-input/span_annotations?span_ids=${span.spanId}&include_annotation_names=${encodeURIComponent('odd\ufffdname')}`,
  );
  assert.is(listed.status, 200, listed.text);
  assert.equal(listed.body.data[0].result.label, 'a\ufffdb');
  assert.equal(listed.body.data[0].result.explanation, 'lone \ufffd surrogate');
  assert.equal(listed.body.data[0].metadata, { 'k\ufffd': 'v\ufffd' });
});

test('huge and tiny scores are stored as sent', async ({ server }) => {
  const r = await callJson(server, 'POST', '/v1/span_annotations?sync=true', {
    data: [good({ name: 'big', result: { score: 1.7e308 } }), good({ name: 'small', result: { score: -5e-324 } })],
  });
  assert.is(r.status, 200, r.text);
  const listed = await callJson(
    server,
    'GET',
    `/v1/projects/bad-input/span_annotations?span_ids=${span.spanId}&include_annotation_names=big&include_annotation_names=small`,
  );
  assert.equal(listed.body.data.map((a: { result: { score: number } }) => a.result.score).sort(), [-5e-324, 1.7e308].sort());
});

test('bad list and delete parameters → 422 naming them', async ({ server }) => {
  for (const [method, path, field] of [
    ['GET', `/v1/projects/bad-input/span_annotations?span_ids=${span.spanId}&limit=0`, 'query.limit'],
    ['GET', `/v1/projects/bad-input/span_annotations?span_ids=${span.spanId}&cursor=%%%`, 'query.cursor'],
    ['GET', '/v1/projects/bad-input/span_annotations?identifier=', 'query.identifier'],
    ['GET', `/v1/projects/bad-input/span_annotations?span_ids=a%00b`, 'query.span_ids'],
    ['DELETE', '/v1/projects/bad-input/span_annotations?delete_all=true&annotator_kind=ROBOT', 'query.annotator_kind'],
    ['DELETE', '/v1/projects/bad-input/span_annotations?delete_all=true&name=', 'query.name'],
    ['DELETE', '/v1/projects/bad-input/span_annotations?start_time=yesterday&end_time=2024-01-01', 'query.start_time'],
  ] as const) {
    const r = await callJson(server, method, path);
    assert.is(r.status, 422, `${method} ${path}: ${r.text}`);
    assert.ok(r.body.detail.includes(field), `${method} ${path}: ${r.body.detail}`);
  }
});

test.run();
