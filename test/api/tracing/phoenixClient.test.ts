process.env.PHOENIX_DISCOVER_CONFIG = 'false';

import { createClient } from '@arizeai/phoenix-client';
import { deleteSession, deleteSessions, getSession, getSessionTurns, listSessions } from '@arizeai/phoenix-client/sessions';
import { deleteSpan, getSpans, logSpans, SpanCreationError } from '@arizeai/phoenix-client/spans';
import { getTraces } from '@arizeai/phoenix-client/traces';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { seed } from '../../support/restClient.ts';
import { attrs, nanos, newSpanId, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Ctx = { server: TestServer; client: ReturnType<typeof createClient> };
const test = suite<Ctx>('@arizeai/phoenix-client 6.14.2 against Loupe', {} as Ctx);
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.client = createClient({ options: { baseUrl: ctx.server.baseUrl } });
});
test.after(async (ctx) => {
  await ctx.server.close();
});

/** A session of `count` turns (root with input/output + LLM child), turn i at second i. */
const session = (sessionId: string, count: number) =>
  Array.from({ length: count }, (_, i) => {
    const traceId = newTraceId();
    const root = spanRecord({
      traceId,
      name: 'turn',
      spanKind: 'AGENT',
      startTimeUnixNano: nanos(`2024-05-01T00:00:0${i}Z`),
      endTimeUnixNano: nanos(`2024-05-01T00:00:0${i}Z`, 500_000_000n),
      attributes: attrs({
        'openinference.span.kind': 'AGENT',
        'session.id': sessionId,
        'input.value': `q${i}`,
        'input.mime_type': 'text/plain',
        'output.value': `a${i}`,
      }),
    });
    const llm = spanRecord({
      traceId,
      parentId: root.spanId,
      name: 'llm',
      spanKind: 'LLM',
      startTimeUnixNano: root.startTimeUnixNano,
      endTimeUnixNano: root.endTimeUnixNano,
      attributes: attrs({ 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': 1 }),
    });
    return [root, llm];
  }).flat();

test('the server version gate passes for every feature the client checks', async ({ client }) => {
  const version = await client.getServerVersion();
  assert.ok(version[0] >= 15, JSON.stringify(version));
});

test('projects through the typed client: create, list, get by id and name, update, delete', async ({ client }) => {
  const created = await client.POST('/v1/projects', { body: { name: 'client-project', description: 'via client' } });
  assert.is(created.data?.data.name, 'client-project');
  const id = created.data!.data.id;
  const listed = await client.GET('/v1/projects', { params: { query: { name_contains: 'client-' } } });
  assert.equal(
    listed.data?.data.map((p) => p.id),
    [id],
  );
  assert.is(
    (await client.GET('/v1/projects/{project_identifier}', { params: { path: { project_identifier: id } } })).data?.data.name,
    'client-project',
  );
  const updated = await client.PUT('/v1/projects/{project_identifier}', {
    params: { path: { project_identifier: 'client-project' } },
    body: { description: 'changed' },
  });
  assert.is(updated.data?.data.description, 'changed');
  const deleted = await client.DELETE('/v1/projects/{project_identifier}', { params: { path: { project_identifier: id } } });
  assert.is(deleted.response.status, 204);
  await client.GET('/v1/projects/{project_identifier}', { params: { path: { project_identifier: id } } }).then(
    (r) => assert.is(r.response.status, 404),
    (e: { response?: Response }) => assert.is(e.response?.status, 404),
  );
});

test('getSpans: filters and cursor pagination as the client sends them', async ({ server, client }) => {
  await seed(server, 'client-spans', session('cs', 3));
  const all = await getSpans({ client, project: { projectName: 'client-spans' }, limit: 2 });
  assert.is(all.spans.length, 2);
  assert.ok(all.nextCursor);
  const rest = await getSpans({ client, project: { projectName: 'client-spans' }, limit: 10, cursor: all.nextCursor! });
  assert.is(rest.spans.length, 4);
  const traceId = all.spans[0]!.context.trace_id;
  assert.is((await getSpans({ client, project: { projectName: 'client-spans' }, traceIds: [traceId] })).spans.length, 2);
  assert.is((await getSpans({ client, project: { projectName: 'client-spans' }, parentId: null })).spans.length, 3);
  assert.is((await getSpans({ client, project: { projectName: 'client-spans' }, spanKind: ['llm'], name: 'llm' })).spans.length, 3);
  assert.is((await getSpans({ client, project: { projectName: 'client-spans' }, attributes: { 'input.value': 'q1' } })).spans.length, 1);
  assert.is(
    (await getSpans({ client, project: { projectName: 'client-spans' }, attributes: { 'llm.token_count.prompt': 1 } })).spans.length,
    3,
  );
  assert.is(
    (
      await getSpans({
        client,
        project: { projectName: 'client-spans' },
        startTime: new Date('2024-05-01T00:00:01Z'),
        endTime: new Date('2024-05-01T00:00:02Z'),
      })
    ).spans.length,
    2,
  );
});

test('getTraces with include_spans, session filter and pagination', async ({ server, client }) => {
  await seed(server, 'client-traces', [...session('ct-1', 2), ...session('ct-2', 1)]);
  const page1 = await getTraces({ client, project: { projectName: 'client-traces' }, limit: 2, order: 'asc' });
  assert.is(page1.traces.length, 2);
  const page2 = await getTraces({ client, project: { projectName: 'client-traces' }, limit: 2, order: 'asc', cursor: page1.nextCursor });
  assert.is(page2.traces.length, 1);
  assert.is(page2.nextCursor, null);
  const inSession = await getTraces({ client, project: { projectName: 'client-traces' }, sessionId: 'ct-1', includeSpans: true });
  assert.is(inSession.traces.length, 2);
  assert.ok(inSession.traces.every((t) => t.spans?.length === 2));
});

test('sessions: listSessions, getSession, getSessionTurns, deleteSession, deleteSessions', async ({ server, client }) => {
  await seed(server, 'client-sessions', [...session('turns', 3), ...session('gone-1', 1), ...session('gone-2', 1)]);
  const sessions = await listSessions({ client, projectName: 'client-sessions' });
  assert.equal(
    sessions.map((s) => s.sessionId),
    ['turns', 'gone-1', 'gone-2'],
  );
  const one = await getSession({ client, sessionId: 'turns' });
  assert.is(one.traces.length, 3);
  assert.equal(await getSession({ client, sessionId: one.id }), one);
  const turns = await getSessionTurns({ client, sessionId: 'turns' });
  assert.equal(
    turns.map((t) => [t.input?.value, t.input?.mimeType, t.output?.value, t.output?.mimeType]),
    [
      ['q0', 'text/plain', 'a0', undefined],
      ['q1', 'text/plain', 'a1', undefined],
      ['q2', 'text/plain', 'a2', undefined],
    ],
  );
  assert.is(turns[0]!.rootSpan?.name, 'turn');
  await deleteSession({ client, sessionId: 'gone-1' });
  await deleteSessions({ client, sessionIds: ['gone-2', 'never-existed'] });
  assert.equal(
    (await listSessions({ client, projectName: 'client-sessions' })).map((s) => s.sessionId),
    ['turns'],
  );
  assert.is((await getTraces({ client, project: { projectName: 'client-sessions' } })).traces.length, 3);
});

test('deleteSpan by span id', async ({ server, client }) => {
  const s = spanRecord({ traceId: newTraceId() });
  await seed(server, 'client-delete-span', [s, spanRecord({ traceId: s.traceId })]);
  await deleteSpan({ client, spanIdentifier: s.spanId });
  const left = await getSpans({ client, project: { projectName: 'client-delete-span' } });
  assert.is(left.spans.length, 1);
  assert.is.not(left.spans[0]!.context.span_id, s.spanId);
});

test('logSpans: queued spans are readable; duplicates raise SpanCreationError', async ({ client }) => {
  const span = {
    name: 'logged',
    context: { trace_id: newTraceId(), span_id: newSpanId() },
    span_kind: 'CHAIN',
    start_time: '2024-06-01T00:00:00Z',
    end_time: '2024-06-01T00:00:01Z',
    status_code: 'OK',
    attributes: { 'input.value': 'hello' },
  };
  const result = await logSpans({ client, project: { projectName: 'client-logged' }, spans: [span] });
  assert.equal(result, { totalReceived: 1, totalQueued: 1 });
  const [stored] = (await getSpans({ client, project: { projectName: 'client-logged' } })).spans;
  assert.is(stored!.name, 'logged');
  assert.equal(stored!.attributes, { 'input.value': 'hello' });
  try {
    await logSpans({ client, project: { projectName: 'client-logged' }, spans: [span] });
    assert.unreachable('a duplicate must be refused');
  } catch (error) {
    assert.instance(error, SpanCreationError);
    assert.is((error as SpanCreationError).duplicateSpans[0]!.spanId, span.context.span_id);
  }
  try {
    await logSpans({
      client,
      project: { projectName: 'client-logged' },
      spans: [{ ...span, context: { ...span.context, span_id: newSpanId() }, start_time: '2024-06-01T00:00:00' }],
    });
    assert.unreachable('a naive time must be refused');
  } catch (error) {
    assert.instance(error, SpanCreationError);
    assert.is((error as SpanCreationError).invalidSpans.length, 1);
  }
});

test.run();
