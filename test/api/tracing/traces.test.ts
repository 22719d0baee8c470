import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, seed } from '../../support/restClient.ts';
import { attrs, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Ctx = { server: TestServer; traces: string[] };
const test = suite<Ctx>('REST traces', {} as Ctx);

/** Trace i starts at minute i and lasts (5 - i) seconds; traces 0 and 1 are in session "s-a", 2 in "s-b". */
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.traces = Array.from({ length: 4 }, () => newTraceId());
  const spans = ctx.traces.flatMap((traceId, i) => {
    const start = nanos(`2024-01-01T00:0${i}:00Z`);
    const root = spanRecord({
      traceId,
      name: `root ${i}`,
      spanKind: 'CHAIN',
      startTimeUnixNano: start,
      endTimeUnixNano: nanos(`2024-01-01T00:0${i}:0${5 - i}Z`),
      attributes: attrs(i < 3 ? { 'session.id': i < 2 ? 's-a' : 's-b' } : {}),
    });
    const llm = spanRecord({
      traceId,
      parentId: root.spanId,
      name: 'llm',
      spanKind: 'LLM',
      status: { code: 'ERROR', message: '' },
      startTimeUnixNano: nanos(`2024-01-01T00:0${i}:01Z`),
      endTimeUnixNano: nanos(`2024-01-01T00:0${i}:02Z`),
      attributes: attrs({ 'llm.token_count.prompt': 10 * (i + 1), 'llm.token_count.completion': i }),
    });
    return [root, llm];
  });
  await seed(ctx.server, 'traces', spans);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const ids = (r: { body: { data: { trace_id: string }[] } }, traces: string[]) => r.body.data.map((t) => traces.indexOf(t.trace_id));

test('GET lists traces newest first with Phoenix TraceData; spans null unless include_spans', async ({ server, traces }) => {
  const r = await callJson(server, 'GET', '/v1/projects/traces/traces');
  assert.is(r.status, 200);
  assert.equal(ids(r, traces), [3, 2, 1, 0]);
  const t = r.body.data[3];
  assert.equal(t, {
    id: t.id,
    trace_id: traces[0],
    project_id: t.project_id,
    start_time: '2024-01-01T00:00:00+00:00',
    end_time: '2024-01-01T00:00:05+00:00',
    token_count_prompt: 10,
    token_count_completion: 0,
    token_count_total: 10,
    cost: null,
    spans: null,
  });
  assert.match(Buffer.from(t.id, 'base64').toString(), /^Trace:\d+$/);
  const withSpans = await callJson(server, 'GET', '/v1/projects/traces/traces?include_spans=true&limit=1');
  assert.equal(
    withSpans.body.data[0].spans.map((s: { name: string; span_kind: string; status_code: string }) => [s.name, s.span_kind, s.status_code]),
    [
      ['root 3', 'CHAIN', 'UNSET'],
      ['llm', 'LLM', 'ERROR'],
    ],
  );
  assert.equal(Object.keys(withSpans.body.data[0].spans[0]).sort(), [
    'end_time',
    'id',
    'name',
    'parent_id',
    'span_id',
    'span_kind',
    'start_time',
    'status_code',
  ]);
});

test('sort by latency or start time, either order, and the cursor walks pages without skips or repeats', async ({ server, traces }) => {
  assert.equal(ids(await callJson(server, 'GET', '/v1/projects/traces/traces?sort=latency_ms'), traces), [0, 1, 2, 3]);
  assert.equal(ids(await callJson(server, 'GET', '/v1/projects/traces/traces?sort=latency_ms&order=asc'), traces), [3, 2, 1, 0]);
  assert.equal(ids(await callJson(server, 'GET', '/v1/projects/traces/traces?order=asc'), traces), [0, 1, 2, 3]);
  for (const sort of ['start_time', 'latency_ms']) {
    for (const order of ['asc', 'desc']) {
      const all = ids(await callJson(server, 'GET', `/v1/projects/traces/traces?sort=${sort}&order=${order}`), traces);
      const walked: number[] = [];
      let cursor: string | null = null;
      do {
        const r: { body: { data: { trace_id: string }[]; next_cursor: string | null } } = await callJson(
          server,
          'GET',
          `/v1/projects/traces/traces?sort=${sort}&order=${order}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        walked.push(...ids(r, traces));
        cursor = r.body.next_cursor;
      } while (cursor);
      assert.equal(walked, all, `${sort} ${order}`);
    }
  }
});

test('time range on the trace start; session_identifier by session id or GlobalID (OR), unknown gives an empty page', async ({
  server,
  traces,
}) => {
  assert.equal(
    ids(await callJson(server, 'GET', '/v1/projects/traces/traces?start_time=2024-01-01T00:01:00Z&end_time=2024-01-01T00:03:00Z'), traces),
    [2, 1],
  );
  assert.equal(ids(await callJson(server, 'GET', '/v1/projects/traces/traces?session_identifier=s-a'), traces), [1, 0]);
  const sessions = (await callJson(server, 'GET', '/v1/projects/traces/sessions')).body.data;
  const b = sessions.find((s: { session_id: string }) => s.session_id === 's-b');
  assert.equal(
    ids(
      await callJson(server, 'GET', `/v1/projects/traces/traces?session_identifier=s-a&session_identifier=${encodeURIComponent(b.id)}`),
      traces,
    ),
    [2, 1, 0],
  );
  assert.equal((await callJson(server, 'GET', '/v1/projects/traces/traces?session_identifier=nope')).body.data, []);
});

test('bad parameters are 422 naming them', async ({ server }) => {
  for (const [query, parameter] of [
    ['sort=name', 'sort'],
    ['order=up', 'order'],
    ['limit=1001', 'limit'],
    ['include_spans=maybe', 'include_spans'],
    ['end_time=soon', 'end_time'],
    ['cursor=!!', 'cursor'],
  ] as const) {
    const r = await callJson(server, 'GET', `/v1/projects/traces/traces?${query}`);
    assert.is(r.status, 422, query);
    assert.match(r.body.detail, parameter);
  }
});

test('DELETE /v1/traces/{id} by trace id or GlobalID removes the trace and its spans', async ({ server }) => {
  const a = newTraceId();
  const b = newTraceId();
  await seed(server, 'trace-deletes', [spanRecord({ traceId: a }), spanRecord({ traceId: a }), spanRecord({ traceId: b })]);
  assert.is((await callJson(server, 'DELETE', `/v1/traces/${a}`)).status, 204);
  const [remaining] = (await callJson(server, 'GET', '/v1/projects/trace-deletes/traces')).body.data;
  assert.is(remaining.trace_id, b);
  assert.is((await callJson(server, 'DELETE', `/v1/traces/${encodeURIComponent(remaining.id)}`)).status, 204);
  assert.equal((await callJson(server, 'GET', '/v1/projects/trace-deletes/spans')).body.data, []);
  assert.is((await callJson(server, 'DELETE', `/v1/traces/${a}`)).status, 404);
});

test.run();
