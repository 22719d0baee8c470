import { getIntrospectionQuery } from 'graphql';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { seed } from '../../support/restClient.ts';
import { attrs, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { dataOf, errorCodes, gql } from './gqlClient.ts';

type Ctx = { server: TestServer; traces: string[]; rootSpanIds: string[] };
const test = suite<Ctx>('GraphQL reads', {} as Ctx);

/** Trace i starts at minute i and lasts (5 - i) s; root + LLM child (ERROR); traces 0 and 1 in session s-a, 2 in s-b. */
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.traces = Array.from({ length: 4 }, () => newTraceId());
  ctx.rootSpanIds = [];
  const spans = ctx.traces.flatMap((traceId, i) => {
    const root = spanRecord({
      traceId,
      name: `root ${i}`,
      spanKind: 'CHAIN',
      startTimeUnixNano: nanos(`2024-01-01T00:0${i}:00Z`, 123_456_000n),
      endTimeUnixNano: nanos(`2024-01-01T00:0${i}:0${5 - i}Z`),
      attributes: attrs({
        'openinference.span.kind': 'CHAIN',
        'input.value': `question ${i}`,
        'output.value': `{"answer": ${i}}`,
        'output.mime_type': 'application/json',
        ...(i < 3 ? { 'session.id': i < 2 ? 's-a' : 's-b' } : {}),
      }),
    });
    ctx.rootSpanIds.push(root.spanId);
    const llm = spanRecord({
      traceId,
      parentId: root.spanId,
      name: 'llm',
      spanKind: 'LLM',
      status: { code: 'ERROR', message: 'boom' },
      startTimeUnixNano: nanos(`2024-01-01T00:0${i}:01Z`),
      endTimeUnixNano: nanos(`2024-01-01T00:0${i}:02Z`),
      attributes: attrs({
        'openinference.span.kind': 'LLM',
        'llm.token_count.prompt': 10 * (i + 1),
        'llm.token_count.completion': i,
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'hi',
      }),
      events: [
        {
          name: 'exception',
          timeUnixNano: nanos(`2024-01-01T00:0${i}:01Z`),
          attributes: attrs({ 'exception.message': 'bad', 'exception.stacktrace': 'at x' }),
        },
      ],
    });
    return [root, llm];
  });
  await seed(ctx.server, 'alpha', spans);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

test('projects with a summary over a time range', async ({ server }) => {
  const data = dataOf(
    await gql(
      server,
      `query($range: TimeRange) { projects(first: 10) { edges { cursor node { id name summary(timeRange: $range) {
        traceCount spanCount latencyMsP50 latencyMsP99 tokenCountPrompt tokenCountCompletion tokenCountTotal errorRate lastActivityAt } } }
        pageInfo { hasNextPage } }
        getProjectByName(name: "alpha") { p50: latencyMsQuantile(probability: 0.5, timeRange: $range) all: latencyMsQuantile(probability: 1) } }`,
      { range: { start: '2024-01-01T00:01:00Z', end: '2024-01-01T00:03:00Z' } },
    ),
  );
  const alpha = data.projects.edges.map((e: any) => e.node).find((p: any) => p.name === 'alpha');
  assert.ok(alpha, 'project alpha listed');
  assert.match(Buffer.from(alpha.id, 'base64').toString(), /^Project:\d+$/);
  // Traces 1 and 2 start inside the range: latencies 3.877 s and 2.877 s (roots start at .123456).
  assert.equal(alpha.summary.traceCount, 2);
  assert.equal(alpha.summary.spanCount, 4);
  assert.equal(alpha.summary.tokenCountPrompt, 50);
  assert.equal(alpha.summary.tokenCountCompletion, 3);
  assert.equal(alpha.summary.tokenCountTotal, 53);
  assert.equal(alpha.summary.errorRate, 1);
  assert.ok(Math.abs(alpha.summary.latencyMsP50 - 3376.544) < 0.01, `p50 ${alpha.summary.latencyMsP50}`);
  assert.ok(alpha.summary.latencyMsP99 > 3800 && alpha.summary.latencyMsP99 < 3877, `p99 ${alpha.summary.latencyMsP99}`);
  assert.equal(alpha.summary.lastActivityAt, '2024-01-01T00:03:02.000000Z');
  assert.equal(data.getProjectByName.p50, alpha.summary.latencyMsP50);
  assert.equal(data.getProjectByName.all, 4876.544);
});

test('project traces: sort, paging with after, root span, counts and tokens', async ({ server, traces }) => {
  const query = `query($name: String!, $after: String) { getProjectByName(name: $name) {
    traces(first: 3, after: $after, sort: { col: latencyMs, dir: asc }) { edges { cursor node { traceId numSpans errorCount tokenCountTotal latencyMs
      rootSpan { name input { value mimeType } output { value mimeType } } } } pageInfo { hasNextPage endCursor } } } }`;
  const first = dataOf(await gql(server, query, { name: 'alpha' })).getProjectByName.traces;
  assert.equal(
    first.edges.map((e: any) => traces.indexOf(e.node.traceId)),
    [3, 2, 1],
  );
  assert.ok(first.pageInfo.hasNextPage);
  const t = first.edges[0].node;
  assert.equal(t, {
    traceId: traces[3],
    numSpans: 2,
    errorCount: 1,
    tokenCountTotal: 43,
    latencyMs: 1876.544,
    rootSpan: {
      name: 'root 3',
      input: { value: 'question 3', mimeType: 'text/plain' },
      output: { value: '{"answer": 3}', mimeType: 'application/json' },
    },
  });
  const second = dataOf(await gql(server, query, { name: 'alpha', after: first.pageInfo.endCursor })).getProjectByName.traces;
  assert.equal(
    second.edges.map((e: any) => traces.indexOf(e.node.traceId)),
    [0],
  );
  assert.not.ok(second.pageInfo.hasNextPage);
  const third = dataOf(await gql(server, query, { name: 'alpha', after: second.pageInfo.endCursor })).getProjectByName.traces;
  assert.equal(third.edges, []);
});

test('project spans with filters; a span with attributes and events', async ({ server }) => {
  const data = dataOf(
    await gql(
      server,
      `{ getProjectByName(name: "alpha") { spans(first: 10, filter: { spanKinds: [llm], statusCodes: [ERROR], attributes: [{ key: "llm.token_count.prompt", value: "20" }] }) {
        edges { node { id name spanKind statusCode statusMessage parentId tokenCountPrompt tokenCountCompletion tokenCountTotal attributes
          events { name message timestamp attributes } trace { traceId } project { name } numChildSpans } } } } }`,
    ),
  );
  const edges = data.getProjectByName.spans.edges;
  assert.is(edges.length, 1);
  const span = edges[0].node;
  assert.is(span.spanKind, 'llm');
  assert.is(span.statusCode, 'ERROR');
  assert.is(span.statusMessage, 'boom');
  assert.is(span.tokenCountTotal, 21);
  assert.equal(JSON.parse(span.attributes).llm.input_messages, [{ message: { role: 'user', content: 'hi' } }]);
  assert.equal(span.events, [
    {
      name: 'exception',
      message: 'bad',
      timestamp: '2024-01-01T00:01:01.000000Z',
      attributes: { 'exception.message': 'bad', 'exception.stacktrace': 'at x' },
    },
  ]);
  assert.is(span.project.name, 'alpha');
  assert.is(span.numChildSpans, 0);
  const node = dataOf(await gql(server, `query($id: ID!) { node(id: $id) { id ... on Span { name } } }`, { id: span.id })).node;
  assert.equal(node, { id: span.id, name: 'llm' });
});

test('project spans sorted by latency (root spans only), paged with after', async ({ server }) => {
  const query = `query($after: String) { getProjectByName(name: "alpha") {
    spans(first: 2, after: $after, rootSpansOnly: true, sort: { col: latencyMs, dir: asc }) { edges { node { name latencyMs } } pageInfo { hasNextPage endCursor } } } }`;
  const first = dataOf(await gql(server, query)).getProjectByName.spans;
  assert.equal(
    first.edges.map((e: any) => e.node.name),
    ['root 3', 'root 2'],
  );
  assert.ok(first.pageInfo.hasNextPage);
  const second = dataOf(await gql(server, query, { after: first.pageInfo.endCursor })).getProjectByName.spans;
  assert.equal(
    second.edges.map((e: any) => e.node.name),
    ['root 1', 'root 0'],
  );
  assert.not.ok(second.pageInfo.hasNextPage);
});

test('project traces filtered on the root span, sorted and paged together', async ({ server, traces }) => {
  const query = `query($filter: SpanFilter, $sort: TraceSort, $after: String) { getProjectByName(name: "alpha") {
    traces(first: 2, after: $after, filter: $filter, sort: $sort) { edges { node { traceId } } pageInfo { hasNextPage endCursor } } } }`;
  const page = async (filter: unknown, sort: unknown = null, after: string | null = null) => {
    const got = dataOf(await gql(server, query, { filter, sort, after })).getProjectByName.traces;
    return {
      order: got.edges.map((e: any) => traces.indexOf(e.node.traceId)),
      next: got.pageInfo.hasNextPage ? got.pageInfo.endCursor : null,
    };
  };

  // Given root spans "root 0".."root 3" (CHAIN, status unset), each with an ERROR LLM child,
  // when the Traces tab filters on names and sorts by latency, then the traces come in that order.
  assert.equal((await page({ names: ['root 1', 'root 3'] }, { col: 'latencyMs', dir: 'asc' })).order, [3, 1]);
  // A filter is on the root span: the ERROR and LLM children do not make their traces match.
  assert.equal((await page({ statusCodes: ['ERROR'] })).order, []);
  assert.equal((await page({ spanKinds: ['llm'] })).order, []);
  assert.equal((await page({ spanKinds: ['chain'], attributes: [{ key: 'input.value', value: 'question 2' }] })).order, [2]);
  assert.equal((await page({ traceIds: [traces[1]!.toUpperCase()] })).order, [1]);
  // Paging keeps filter and sort: no trace skipped or repeated.
  const filter = { names: ['root 0', 'root 1', 'root 2'] };
  const first = await page(filter, { col: 'startTime', dir: 'asc' });
  assert.equal(first.order, [0, 1]);
  const second = await page(filter, { col: 'startTime', dir: 'asc' }, first.next);
  assert.equal(second, { order: [2], next: null });
  // A bad attribute value is a clear error naming the argument.
  const bad = await gql(server, query, { filter: { attributes: [{ key: 'k', value: '[1]' }] } });
  assert.equal(errorCodes(bad), ['invalid_filter']);
});

test('project sessions over a time range (on the session start)', async ({ server }) => {
  const query = `query($timeRange: TimeRange) { getProjectByName(name: "alpha") {
    sessions(first: 10, timeRange: $timeRange) { edges { node { sessionId } } pageInfo { hasNextPage } } } }`;
  const ids = async (timeRange: unknown) =>
    dataOf(await gql(server, query, { timeRange })).getProjectByName.sessions.edges.map((e: any) => e.node.sessionId);
  // s-a starts at 00:00 (traces 0 and 1), s-b at 00:02.
  assert.equal(await ids({ start: '2024-01-01T00:01:00Z' }), ['s-b']);
  assert.equal(await ids({ end: '2024-01-01T00:02:00Z' }), ['s-a']);
  assert.equal(await ids({ start: '2024-01-01T00:00:00Z', end: '2024-01-01T00:05:00Z' }), ['s-a', 's-b']);
  assert.equal(await ids({ start: '2024-02-01T00:00:00Z' }), []);
});

test('a trace with all its spans; first is mandatory and at most 1000', async ({ server, traces, rootSpanIds }) => {
  const data = dataOf(
    await gql(
      server,
      `query($t: String!) { getTraceByOtelId(traceId: $t) { spans(first: 1000) { edges { node { spanId parentId } } } } }`,
      { t: traces[0] },
    ),
  );
  const spans = data.getTraceByOtelId.spans.edges.map((e: any) => e.node);
  assert.is(spans.length, 2);
  assert.equal(spans[0], { spanId: rootSpanIds[0], parentId: null });
  assert.is(spans[1].parentId, rootSpanIds[0]);
  // Tree pages come light; attributes and events are loaded for the spans that ask for them.
  const detailed = dataOf(
    await gql(
      server,
      `query($t: String!) { getTraceByOtelId(traceId: $t) { spans(first: 10) { edges { node { name tokenCountTotal input { value } events { name } } } } } }`,
      {
        t: traces[0],
      },
    ),
  ).getTraceByOtelId.spans.edges.map((e: any) => e.node);
  assert.equal(detailed, [
    { name: 'root 0', tokenCountTotal: null, input: { value: 'question 0' }, events: [] },
    { name: 'llm', tokenCountTotal: 10, input: null, events: [{ name: 'exception' }] },
  ]);

  const missing = await gql(server, `query($t: String!) { getTraceByOtelId(traceId: $t) { spans { edges { node { spanId } } } } }`, {
    t: traces[0],
  });
  assert.match(missing.body.errors.map((e: any) => e.message).join('\n'), /argument "first" of type "Int!" is required/);
  const large = await gql(
    server,
    `query($t: String!) { getTraceByOtelId(traceId: $t) { spans(first: 1001) { edges { node { spanId } } } } }`,
    { t: traces[0] },
  );
  assert.equal(errorCodes(large), ['invalid_first']);
  assert.match(large.body.errors[0].message, /Argument "first" must be between 1 and 1000/);
});

test('sessions of a project, a session with its turns and traces', async ({ server, traces }) => {
  const data = dataOf(
    await gql(
      server,
      `{ getProjectByName(name: "alpha") { sessions(first: 10) { edges { node { sessionId numTraces numTracesWithError tokenUsage { total }
        firstInput { value } lastOutput { value } } } } } }`,
    ),
  );
  const sessions = data.getProjectByName.sessions.edges.map((e: any) => e.node);
  assert.equal(
    sessions.map((s: any) => s.sessionId),
    ['s-a', 's-b'],
  );
  assert.equal(sessions[0], {
    sessionId: 's-a',
    numTraces: 2,
    numTracesWithError: 2,
    tokenUsage: { total: 31 },
    firstInput: { value: 'question 0' },
    lastOutput: { value: '{"answer": 1}' },
  });

  const session = dataOf(
    await gql(
      server,
      `{ getProjectSessionById(sessionId: "s-a") { turns { traceId input { value } output { value } trace { numSpans } } traces(first: 1) { edges { node { traceId } } pageInfo { hasNextPage endCursor } } } }`,
    ),
  ).getProjectSessionById;
  assert.equal(
    session.turns.map((t: any) => t.traceId),
    [traces[0], traces[1]],
  );
  assert.equal(session.turns[0].input, { value: 'question 0' });
  assert.is(session.turns[0].trace.numSpans, 2);
  assert.equal(
    session.traces.edges.map((e: any) => e.node.traceId),
    [traces[0]],
  );
  assert.ok(session.traces.pageInfo.hasNextPage);
});

test('viewer is null with auth off; unknown node ids are a clear error', async ({ server }) => {
  assert.equal(dataOf(await gql(server, '{ viewer { id } }')), { viewer: null });
  const r = await gql(server, '{ node(id: "UHJvamVjdDo5OTk5") { id } }');
  assert.equal(errorCodes(r), ['node_not_found']);
});

test('over-deep and over-costly queries are refused with a clear error', async ({ server }) => {
  const deep = await gql(
    server,
    `{ projects(first: 1) { edges { node { traces(first: 1) { edges { node { rootSpan { trace { rootSpan { trace { project { traces(first: 1) { edges { node { id } } } } } } } } } } } } } } }`,
  );
  assert.equal(errorCodes(deep), ['query_too_complex']);
  assert.match(deep.body.errors[0].message, /too deep/);
  const costly = await gql(server, `{ projects(first: 1000) { edges { node { traces(first: 1000) { edges { node { id } } } } } } }`);
  // Both limits refuse it: its shape (a million rows of fields) and its work (1,001 queries).
  assert.equal(errorCodes(costly), ['query_too_complex', 'query_too_complex']);
  assert.match(costly.body.errors[0].message, /too costly/);
  assert.match(costly.body.errors[1].message, /touches too many rows/);
});

test('the standard introspection query passes the depth and cost limits', async ({ server }) => {
  const data = dataOf(await gql(server, getIntrospectionQuery()));
  assert.ok(data.__schema.types.some((t: any) => t.name === 'Project'));
});

test('GET runs queries; a browser gets the explorer page with a strict CSP', async ({ server }) => {
  const get = await fetch(`${server.baseUrl}/graphql?query=${encodeURIComponent('{ viewer { id } }')}`, {
    headers: { accept: 'application/json' },
  });
  assert.is(get.status, 200);
  assert.equal(await get.json(), { data: { viewer: null } });
  const mutation = await fetch(`${server.baseUrl}/graphql?query=${encodeURIComponent('mutation { __typename }')}`, {
    headers: { accept: 'application/json' },
  });
  assert.is(mutation.status, 405);
  const page = await fetch(`${server.baseUrl}/graphql`, { headers: { accept: 'text/html,application/xhtml+xml' } });
  assert.is(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'; script-src 'sha256-/);
  assert.match(await page.text(), /<textarea id="q"/);
});

test.run();
