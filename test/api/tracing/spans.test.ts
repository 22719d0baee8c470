import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, seed } from '../../support/restClient.ts';
import { attrs, nanos, newSpanId, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Ctx = { server: TestServer; t1: string; t2: string; root: string; ids: Record<string, string> };
const test = suite<Ctx>('REST spans', {} as Ctx);

const names = (r: { body: { data: { name: string }[] } }) => r.body.data.map((s) => s.name);

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.t1 = newTraceId();
  ctx.t2 = newTraceId();
  ctx.root = newSpanId();
  const spans = [
    spanRecord({
      traceId: ctx.t1,
      spanId: ctx.root,
      name: 'root',
      spanKind: 'CHAIN',
      status: { code: 'OK', message: '' },
      startTimeUnixNano: nanos('2024-01-01T00:00:00Z', 123_456_000n),
      endTimeUnixNano: nanos('2024-01-01T00:00:02Z'),
      attributes: attrs({
        'openinference.span.kind': 'chain',
        'user.id': '12345',
        metadata: '{"tier":"gold","level":3}',
        'tag.tags': ['a', 'b'],
      }),
      events: [
        { name: 'exception', timeUnixNano: nanos('2024-01-01T00:00:01Z'), attributes: attrs({ 'exception.message': 'x', other: 1 }) },
      ],
    }),
    spanRecord({
      traceId: ctx.t1,
      parentId: ctx.root,
      name: 'llm',
      spanKind: 'LLM',
      status: { code: 'ERROR', message: 'boom' },
      startTimeUnixNano: nanos('2024-01-01T00:00:01Z'),
      attributes: attrs({
        'openinference.span.kind': 'LLM',
        'user.id': 12345,
        'llm.token_count.prompt': 5,
        score: 5.0,
        ratio: 0.5,
        streaming: true,
        'session.id': 'sess:abc:1',
      }),
    }),
    spanRecord({
      traceId: ctx.t2,
      name: 'other',
      spanKind: 'TOOL',
      startTimeUnixNano: nanos('2024-01-02T00:00:00Z'),
      endTimeUnixNano: nanos('2024-01-02T00:00:01Z'),
    }),
    // an orphan: its parent never arrived
    spanRecord({
      traceId: ctx.t2,
      parentId: newSpanId(),
      name: 'orphan',
      startTimeUnixNano: nanos('2024-01-02T00:00:00Z'),
      endTimeUnixNano: nanos('2024-01-02T00:00:01Z'),
    }),
  ];
  await seed(ctx.server, 'spans', spans);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

test('GET returns Phoenix spans newest first: raw span_kind, flat attributes, Python timestamps, events', async ({ server, t1, root }) => {
  const r = await callJson(server, 'GET', '/v1/projects/spans/spans');
  assert.is(r.status, 200);
  assert.equal(names(r), ['orphan', 'other', 'llm', 'root']);
  const span = r.body.data[3];
  assert.equal(span, {
    id: span.id,
    name: 'root',
    context: { trace_id: t1, span_id: root },
    span_kind: 'chain',
    parent_id: null,
    start_time: '2024-01-01T00:00:00.123456+00:00',
    end_time: '2024-01-01T00:00:02+00:00',
    status_code: 'OK',
    status_message: '',
    attributes: { 'user.id': '12345', 'metadata.tier': 'gold', 'metadata.level': 3, 'tag.tags': ['a', 'b'] },
    events: [{ name: 'exception', timestamp: '2024-01-01T00:00:01+00:00', attributes: { 'exception.message': 'x' } }],
    cost: null,
  });
  assert.match(Buffer.from(span.id, 'base64').toString(), /^Span:\d+$/);
  assert.is(r.body.data[0].span_kind, 'UNKNOWN');
  assert.is(r.body.next_cursor, null);
});

test('pagination: limit + next_cursor (inclusive) walks every span once', async ({ server }) => {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const r: { body: { data: { name: string }[]; next_cursor: string | null } } = await callJson(
      server,
      'GET',
      `/v1/projects/spans/spans?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    seen.push(...names(r));
    cursor = r.body.next_cursor;
  } while (cursor);
  assert.equal(seen, ['orphan', 'other', 'llm', 'root']);
});

test('filters: OR within a repeated parameter, AND across parameters', async ({ server, t1, t2, root }) => {
  const q = async (query: string) => names(await callJson(server, 'GET', `/v1/projects/spans/spans?${query}`));
  assert.equal(await q('name=root&name=other'), ['other', 'root']);
  assert.equal(await q('span_kind=llm&span_kind=TOOL'), ['other', 'llm']);
  assert.equal(await q('status_code=error'), ['llm']);
  assert.equal(await q(`trace_id=${t1}`), ['llm', 'root']);
  assert.equal(await q(`trace_id=${t1}&trace_id=${t2}&name=other`), ['other']);
  assert.equal(await q('parent_id=null'), ['other', 'root']);
  assert.equal(await q(`parent_id=${root}`), ['llm']);
  assert.equal(await q(`trace_id=${t1}&parent_id=null&limit=1`), ['root']);
  assert.equal(await q('start_time=2024-01-01T00:00:01Z&end_time=2024-01-02T00:00:00'), ['llm']);
  assert.equal(await q('start_time=2024-01-02'), ['orphan', 'other']);
});

test('attribute filters are typed: int matches 5 and 5.0, quoted text only strings, values may hold colons', async ({ server }) => {
  const q = async (...filters: string[]) =>
    names(await callJson(server, 'GET', `/v1/projects/spans/spans?${filters.map((f) => `attribute=${encodeURIComponent(f)}`).join('&')}`));
  assert.equal(await q('user.id:12345'), ['llm']);
  assert.equal(await q('user.id:"12345"'), ['root']);
  assert.equal(await q('score:5'), ['llm']);
  assert.equal(await q('ratio:0.5'), ['llm']);
  assert.equal(await q('streaming:true'), ['llm']);
  assert.equal(await q('metadata.tier:gold'), ['root']);
  assert.equal(await q('metadata.level:3'), ['root']);
  assert.equal(await q('session.id:sess:abc:1'), ['llm']);
  assert.equal(await q('metadata.tier:gold', 'metadata.level:4'), []);
  assert.equal(await q('tag.tags:a'), []);
});

test('bad query parameters are 422 naming the parameter', async ({ server }) => {
  for (const [query, parameter] of [
    ['span_kind=banana', 'span_kind'],
    ['status_code=MAYBE', 'status_code'],
    ['attribute=nocolon', 'attribute'],
    ['attribute=k:null', 'attribute'],
    ['attribute=k:[1]', 'attribute'],
    ['attribute=:v', 'attribute'],
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['start_time=yesterday', 'start_time'],
    ['cursor=%%%', 'cursor'],
  ] as const) {
    const r = await callJson(server, 'GET', `/v1/projects/spans/spans?${query}`);
    assert.is(r.status, 422, query);
    assert.match(r.body.detail, parameter, query);
  }
});

test('otlpv1: OTLP-style spans with typed AnyValues and exact integer nanoseconds', async ({ server, t1 }) => {
  const response = await fetch(`${server.baseUrl}/v1/projects/spans/spans/otlpv1?trace_id=${t1}&name=llm`);
  const text = await response.text();
  assert.match(text, '"start_time_unix_nano":1704067201000000000');
  const [span] = JSON.parse(text).data;
  assert.is(span.trace_id, t1);
  assert.is(span.kind, 'SPAN_KIND_INTERNAL');
  assert.equal(span.status, { code: 2, message: 'boom' });
  const attr = (key: string) => span.attributes.find((a: { key: string }) => a.key === key)?.value;
  assert.is(attr('openinference.span.kind').string_value, 'LLM');
  assert.is(attr('user.id').int_value, 12345);
  assert.is(attr('ratio').double_value, 0.5);
  assert.is(attr('streaming').bool_value, true);
  assert.equal(Object.keys(attr('ratio')).sort(), [
    'array_value',
    'bool_value',
    'bytes_value',
    'double_value',
    'int_value',
    'kvlist_value',
    'string_value',
  ]);
});

test('POST spans: 202 with counts, then readable; span_kind goes back into the attributes', async ({ server }) => {
  const trace = newTraceId();
  const body = {
    data: [
      {
        name: 'posted',
        context: { trace_id: trace, span_id: newSpanId() },
        span_kind: 'llm',
        parent_id: null,
        start_time: '2024-03-01T00:00:00.000001Z',
        end_time: '2024-03-01T00:00:01+02:00',
        status_code: 'ok',
        attributes: { 'llm.model_name': 'm', metadata: { a: 1 }, list: [1, 2] },
        events: [{ name: 'e', timestamp: '2024-03-01T00:00:00Z', attributes: { k: 'v' } }],
      },
    ],
  };
  const r = await callJson(server, 'POST', '/v1/projects/posted-project/spans', body);
  assert.is(r.status, 202);
  assert.equal(r.body, { total_received: 1, total_queued: 1 });
  const [span] = (await callJson(server, 'GET', '/v1/projects/posted-project/spans')).body.data;
  assert.is(span.span_kind, 'llm');
  assert.is(span.status_code, 'OK');
  assert.is(span.start_time, '2024-03-01T00:00:00.000001+00:00');
  assert.is(span.end_time, '2024-02-29T22:00:01+00:00');
  assert.equal(span.attributes, { 'llm.model_name': 'm', 'metadata.a': 1, list: [1, 2] });
  assert.equal(span.events, [{ name: 'e', timestamp: '2024-03-01T00:00:00+00:00', attributes: { k: 'v' } }]);

  const again = await callJson(server, 'POST', '/v1/projects/posted-project/spans', body);
  assert.is(again.status, 400);
  const report = JSON.parse(again.body.detail);
  assert.is(report.total_duplicates, 1);
  assert.is(report.total_queued, 0);
  const naive = await callJson(server, 'POST', '/v1/projects/posted-project/spans', {
    data: [{ ...body.data[0], start_time: '2024-03-01T00:00:00' }],
  });
  assert.is(naive.status, 422);
  assert.equal(naive.body.detail[0].loc, ['body', 'data', 0, 'start_time']);
  const badId = await callJson(server, 'POST', '/v1/projects/posted-project/spans', {
    data: [{ ...body.data[0], context: { trace_id: 'xyz', span_id: newSpanId() } }],
  });
  assert.is(badId.status, 400);
  assert.is(JSON.parse(badId.body.detail).invalid_spans.length, 1);
  const unknownGlobalId = await callJson(
    server,
    'POST',
    `/v1/projects/${encodeURIComponent(Buffer.from('Project:999').toString('base64'))}/spans`,
    body,
  );
  assert.is(unknownGlobalId.status, 404);
});

test('DELETE /v1/spans/{id}: by GlobalID or span id; 204 then 404', async ({ server }) => {
  const trace = newTraceId();
  const a = spanRecord({ traceId: trace, name: 'a' });
  const b = spanRecord({ traceId: trace, name: 'b' });
  await seed(server, 'deleting', [a, b]);
  const [newest] = (await callJson(server, 'GET', '/v1/projects/deleting/spans')).body.data;
  assert.is((await callJson(server, 'DELETE', `/v1/spans/${encodeURIComponent(newest.id)}`)).status, 204);
  assert.is((await callJson(server, 'DELETE', `/v1/spans/${a.spanId}`)).status, 204);
  assert.is((await callJson(server, 'DELETE', `/v1/spans/${a.spanId}`)).status, 404);
  assert.equal((await callJson(server, 'GET', '/v1/projects/deleting/spans')).body.data, []);
  assert.equal((await callJson(server, 'GET', '/v1/projects/deleting/traces')).body.data, [], 'the emptied trace went too');
});

test.run();
