import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, seed } from '../../support/restClient.ts';
import { attrs, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer }>('REST sessions', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
});
test.after(async (ctx) => {
  await ctx.server.close();
});

/** `count` traces of one root + one LLM span each in session `sessionId`, trace i at minute i. */
const sessionTraces = (sessionId: string, count: number) =>
  Array.from({ length: count }, (_, i) => {
    const traceId = newTraceId();
    const root = spanRecord({
      traceId,
      startTimeUnixNano: nanos(`2024-01-01T00:0${i}:00Z`),
      endTimeUnixNano: nanos(`2024-01-01T00:0${i}:01Z`),
      attributes: attrs({ 'session.id': sessionId, 'input.value': `q${i}`, 'output.value': `a${i}` }),
    });
    const llm = spanRecord({
      traceId,
      parentId: root.spanId,
      spanKind: 'LLM',
      startTimeUnixNano: root.startTimeUnixNano,
      endTimeUnixNano: root.endTimeUnixNano,
      attributes: attrs({ 'llm.token_count.prompt': 3, 'llm.token_count.completion': 4 }),
    });
    return { traceId, spans: [root, llm] };
  });

test('list (ascending by default, paged), get by session id or GlobalID, Phoenix SessionData', async ({ server }) => {
  const one = sessionTraces('chat-1', 2);
  const two = sessionTraces('chat-2', 1);
  await seed(
    server,
    'sessions',
    [...one, ...two].flatMap((t) => t.spans),
  );
  const list = await callJson(server, 'GET', '/v1/projects/sessions/sessions');
  assert.equal(
    list.body.data.map((s: { session_id: string }) => s.session_id),
    ['chat-1', 'chat-2'],
  );
  assert.equal(
    (await callJson(server, 'GET', '/v1/projects/sessions/sessions?order=desc')).body.data.map((s: { session_id: string }) => s.session_id),
    ['chat-2', 'chat-1'],
  );
  const first = await callJson(server, 'GET', '/v1/projects/sessions/sessions?limit=1');
  assert.equal(first.body.data.length, 1);
  const second = await callJson(
    server,
    'GET',
    `/v1/projects/sessions/sessions?limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`,
  );
  assert.is(second.body.data[0].session_id, 'chat-2');
  assert.is(second.body.next_cursor, null);

  const session = list.body.data[0];
  assert.equal(session, {
    id: session.id,
    session_id: 'chat-1',
    project_id: session.project_id,
    start_time: '2024-01-01T00:00:00+00:00',
    end_time: '2024-01-01T00:01:01+00:00',
    traces: one.map((t, i) => ({
      id: session.traces[i].id,
      trace_id: t.traceId,
      start_time: `2024-01-01T00:0${i}:00+00:00`,
      end_time: `2024-01-01T00:0${i}:01+00:00`,
    })),
    token_count_prompt: 6,
    token_count_completion: 8,
    token_count_total: 14,
    cost: null,
  });
  assert.match(Buffer.from(session.id, 'base64').toString(), /^ProjectSession:\d+$/);
  assert.equal((await callJson(server, 'GET', '/v1/sessions/chat-1')).body.data, session);
  assert.equal((await callJson(server, 'GET', `/v1/sessions/${encodeURIComponent(session.id)}`)).body.data, session);
  assert.is((await callJson(server, 'GET', '/v1/sessions/nope')).status, 404);
  assert.is((await callJson(server, 'GET', '/v1/projects/sessions/sessions?order=sideways')).status, 422);
});

test('DELETE /v1/sessions/{id} cascades to traces and spans; POST /v1/sessions/delete skips unknown ids, refuses mixed kinds', async ({
  server,
}) => {
  const a = sessionTraces('del-a', 2);
  const b = sessionTraces('del-b', 1);
  const c = sessionTraces('del-c', 1);
  const keep = { traceId: newTraceId() };
  await seed(server, 'session-deletes', [...a, ...b, ...c].flatMap((t) => t.spans).concat(spanRecord({ traceId: keep.traceId })));
  assert.is((await callJson(server, 'DELETE', '/v1/sessions/del-a')).status, 204);
  assert.is((await callJson(server, 'GET', '/v1/sessions/del-a')).status, 404);
  assert.is((await callJson(server, 'DELETE', '/v1/sessions/del-a')).status, 404);
  const mixed = await callJson(server, 'POST', '/v1/sessions/delete', {
    session_identifiers: ['del-b', Buffer.from('ProjectSession:1').toString('base64')],
  });
  assert.is(mixed.status, 422);
  assert.is((await callJson(server, 'POST', '/v1/sessions/delete', { session_identifiers: [] })).status, 422);
  assert.is((await callJson(server, 'POST', '/v1/sessions/delete', { session_identifiers: ['del-b', 'del-c', 'unknown'] })).status, 204);
  assert.equal((await callJson(server, 'GET', '/v1/projects/session-deletes/sessions')).body.data, []);
  const traces = (await callJson(server, 'GET', '/v1/projects/session-deletes/traces')).body.data;
  assert.equal(
    traces.map((t: { trace_id: string }) => t.trace_id),
    [keep.traceId],
  );
  assert.is((await callJson(server, 'GET', '/v1/projects/session-deletes/spans')).body.data.length, 1);
});

test('GET /v1/sessions/{id}/turns: each trace of the session with its root input and output, by start time', async ({ server }) => {
  const chat = sessionTraces('turns-1', 2);
  await seed(
    server,
    'session-turns',
    chat.flatMap((t) => t.spans),
  );
  const turns = await callJson(server, 'GET', '/v1/sessions/turns-1/turns');
  assert.is(turns.status, 200);
  assert.equal(
    turns.body.data,
    chat.map((t, i) => ({
      trace_id: t.traceId,
      start_time: `2024-01-01T00:0${i}:00+00:00`,
      end_time: `2024-01-01T00:0${i}:01+00:00`,
      input: { value: `q${i}`, mime_type: 'text/plain' },
      output: { value: `a${i}`, mime_type: 'text/plain' },
    })),
  );
  const session = (await callJson(server, 'GET', '/v1/sessions/turns-1')).body.data;
  assert.equal((await callJson(server, 'GET', `/v1/sessions/${encodeURIComponent(session.id)}/turns`)).body, turns.body);
  assert.is((await callJson(server, 'GET', '/v1/sessions/nope/turns')).status, 404);
});

test('turns and the session traces are in start order when one starts on a whole second and the next within it', async ({ server }) => {
  // Python's isoformat drops a zero fraction: '…:03+00:00' and '…:03.006000+00:00' do not sort as
  // strings the way they sort as times under every collation, so the order is the server's.
  const [first, second] = sessionTraces('whole-second', 2).map((t, i) => ({
    ...t,
    spans: t.spans.map((s) => ({
      ...s,
      startTimeUnixNano: nanos('2024-01-01T00:00:03Z', BigInt(i * 6_000_000)),
      endTimeUnixNano: nanos('2024-01-01T00:00:04Z'),
    })),
  }));
  // The later turn is stored first, so row order alone would put it first.
  await seed(server, 'whole-second', second!.spans);
  await seed(server, 'whole-second', first!.spans);
  const turns = (await callJson(server, 'GET', '/v1/sessions/whole-second/turns')).body.data;
  assert.equal(
    turns.map((t: { start_time: string; input: { value: string } }) => [t.start_time, t.input.value]),
    [
      ['2024-01-01T00:00:03+00:00', 'q0'],
      ['2024-01-01T00:00:03.006000+00:00', 'q1'],
    ],
  );
  const session = (await callJson(server, 'GET', '/v1/sessions/whole-second')).body.data;
  assert.equal(
    session.traces.map((t: { trace_id: string }) => t.trace_id),
    [first!.traceId, second!.traceId],
  );
});

test.run();
