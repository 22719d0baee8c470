import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, seed } from '../../support/restClient.ts';
import { attrs, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Ctx = { server: TestServer; projectGid: string };
const test = suite<Ctx>('filter language and full-text search over REST and GraphQL', {} as Ctx);

const at = (second: number) => nanos(`2024-03-01T10:00:${String(second).padStart(2, '0')}Z`);
const ok = { code: 'OK' as const, message: '' };

/**
 * Trace A (session s1): root "agent A" asks for a refund; its LLM child "llm A" (gpt-4o, 6 s)
 * answers "Refund approved" and a judge marked it incorrect.
 * Trace B (session s1): root "agent B" failed; LLM child "llm B" (gpt-4o-mini, 6 s).
 * Trace C (no session): a lone LLM root "solo C" (gpt-4o, 7 s), judged correct.
 * Trace D (session s2): root "agent D" about the weather with three tool children (4 spans).
 */
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  const [a, b, c, d] = [newTraceId(), newTraceId(), newTraceId(), newTraceId()];
  const rootA = spanRecord({
    traceId: a,
    name: 'agent A',
    spanKind: 'CHAIN',
    status: ok,
    startTimeUnixNano: at(0),
    endTimeUnixNano: at(8),
    attributes: attrs({ 'session.id': 's1', 'input.value': 'I want a refund please' }),
  });
  const llmA = spanRecord({
    traceId: a,
    parentId: rootA.spanId,
    name: 'llm A',
    spanKind: 'LLM',
    status: ok,
    startTimeUnixNano: at(1),
    endTimeUnixNano: at(7),
    attributes: attrs({
      'llm.model_name': 'gpt-4o',
      'output.value': 'Refund approved, sorry for the trouble',
      'llm.token_count.prompt': 1000,
      'llm.token_count.completion': 100,
    }),
  });
  const rootB = spanRecord({
    traceId: b,
    name: 'agent B',
    spanKind: 'CHAIN',
    status: { code: 'ERROR', message: 'boom' },
    startTimeUnixNano: at(10),
    endTimeUnixNano: at(18),
    attributes: attrs({ 'session.id': 's1', 'input.value': 'hello' }),
  });
  const llmB = spanRecord({
    traceId: b,
    parentId: rootB.spanId,
    name: 'llm B',
    spanKind: 'LLM',
    status: ok,
    startTimeUnixNano: at(11),
    endTimeUnixNano: at(17),
    attributes: attrs({ 'llm.model_name': 'gpt-4o-mini' }),
  });
  const soloC = spanRecord({
    traceId: c,
    name: 'solo C',
    spanKind: 'LLM',
    status: ok,
    startTimeUnixNano: at(20),
    endTimeUnixNano: at(27),
    attributes: attrs({
      'llm.model_name': 'gpt-4o',
      'input.value': 'translate this',
      'llm.token_count.prompt': 10,
      'llm.token_count.completion': 1,
    }),
  });
  const rootD = spanRecord({
    traceId: d,
    name: 'agent D',
    spanKind: 'CHAIN',
    status: ok,
    startTimeUnixNano: at(30),
    endTimeUnixNano: at(35),
    attributes: attrs({ 'session.id': 's2', 'input.value': 'weather today?' }),
  });
  const tools = [1, 2, 3].map((i) =>
    spanRecord({
      traceId: d,
      parentId: rootD.spanId,
      name: `tool D${i}`,
      spanKind: 'TOOL',
      status: ok,
      startTimeUnixNano: at(30 + i),
      endTimeUnixNano: at(31 + i),
    }),
  );
  await seed(ctx.server, 'filters', [rootA, llmA, rootB, llmB, soloC, rootD, ...tools]);
  // Search trails the spans: their words are written behind the projection.
  await ctx.server.spanSearch.catchUp();
  const annotate = await callJson(ctx.server, 'POST', '/v1/span_annotations?sync=true', {
    data: [
      { span_id: llmA.spanId, name: 'correctness', annotator_kind: 'LLM', result: { label: 'incorrect', score: 0 } },
      { span_id: soloC.spanId, name: 'correctness', annotator_kind: 'LLM', result: { label: 'correct', score: 1 } },
    ],
  });
  assert.is(annotate.status, 200, annotate.text);
  const projects = await graphql(ctx.server, '{ projects(first: 10) { edges { node { id name } } } }');
  ctx.projectGid = projects.data.projects.edges.find((e: { node: { name: string } }) => e.node.name === 'filters').node.id;
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const graphql = async (server: TestServer, query: string, variables: Record<string, unknown> = {}) => {
  const r = await callJson(server, 'POST', '/graphql', { query, variables });
  assert.is(r.status, 200, r.text);
  return r.body;
};

const restSpans = async (server: TestServer, query: string) => {
  const r = await callJson(server, 'GET', `/v1/projects/filters/spans?${query}`);
  assert.is(r.status, 200, r.text);
  return r.body.data.map((s: { name: string }) => s.name).sort();
};

const gqlSpans = async ({ server, projectGid }: Ctx, filterCondition: string | null, search: string | null = null) => {
  const body = await graphql(
    server,
    `query ($id: ID!, $f: String, $s: String) { node(id: $id) { ... on Project {
      spans(first: 100, filterCondition: $f, search: $s) { edges { node { name } } } } } }`,
    { id: projectGid, f: filterCondition, s: search },
  );
  assert.not.ok(body.errors, JSON.stringify(body.errors));
  return body.data.node.spans.edges.map((e: { node: { name: string } }) => e.node.name).sort();
};

const EXPECTED: readonly [string, readonly string[]][] = [
  ["span_kind == 'LLM' and latency_ms > 5000 and llm.model_name == 'gpt-4o'", ['llm A', 'solo C']],
  ["'refund' in input.value", ['agent A']],
  ["not (status_code == 'OK')", ['agent B']],
  ["annotations['correctness'].label == 'incorrect'", ['llm A']],
  ["annotations['correctness'].score >= 0.5", ['solo C']],
  ["attributes['llm.model_name'] in ['gpt-4o-mini', 'claude']", ['llm B']],
  ["span_kind == 'TOOL' and name != 'tool D2'", ['tool D1', 'tool D3']],
  ["parent_id is None and span_kind != 'LLM'", ['agent A', 'agent B', 'agent D']],
  ["llm.model_name is not None and not (llm.model_name == 'gpt-4o')", ['llm B']],
  [
    "(span_kind == 'LLM' or span_kind == 'TOOL') and start_time >= '2024-03-01T10:00:20Z' and latency_ms < 2000",
    ['tool D1', 'tool D2', 'tool D3'],
  ],
];

test('span filters return exactly the matching spans, over REST and GraphQL alike', async (ctx) => {
  for (const [filter, names] of EXPECTED) {
    assert.equal(await restSpans(ctx.server, `filter=${encodeURIComponent(filter)}`), [...names].sort(), `REST: ${filter}`);
    assert.equal(await gqlSpans(ctx, filter), [...names].sort(), `GraphQL: ${filter}`);
  }
});

test('the filter combines with the existing parameters (AND)', async ({ server }) => {
  assert.equal(await restSpans(server, `span_kind=LLM&filter=${encodeURIComponent('latency_ms > 6500')}`), ['solo C']);
});

test('trace filters see the trace aggregates and the root span', async ({ server, projectGid }) => {
  const traces = async (filter: string) => {
    const r = await callJson(server, 'GET', `/v1/projects/filters/traces?include_spans=true&filter=${encodeURIComponent(filter)}`);
    assert.is(r.status, 200, r.text);
    return r.body.data
      .map((t: { spans: { name: string; parent_id: string | null }[] }) => t.spans.find((s) => s.parent_id === null)!.name)
      .sort();
  };
  assert.equal(await traces('span_count >= 4'), ['agent D']);
  assert.equal(await traces('cost > 0.001'), ['agent A']);
  assert.equal(await traces("span_count == 2 and status_code == 'ERROR'"), ['agent B']);
  assert.equal(await traces("'refund' in input.value or span_kind == 'LLM'"), ['agent A', 'solo C']);
  const body = await graphql(
    server,
    `query ($id: ID!, $f: String) { node(id: $id) { ... on Project {
      traces(first: 10, filterCondition: $f) { edges { node { traceId numSpans } } } } } }`,
    { id: projectGid, f: 'span_count > 1 and total_tokens == 0' },
  );
  assert.not.ok(body.errors, JSON.stringify(body.errors));
  assert.equal(body.data.node.traces.edges.map((e: { node: { numSpans: number } }) => e.node.numSpans).sort(), [2, 4]);
});

test('session filters see the session aggregates and its turns', async ({ server, projectGid }) => {
  const sessions = async (filter: string) => {
    const body = await graphql(
      server,
      `query ($id: ID!, $f: String) { node(id: $id) { ... on Project {
        sessions(first: 10, filterCondition: $f) { edges { node { sessionId } } } } } }`,
      { id: projectGid, f: filter },
    );
    assert.not.ok(body.errors, JSON.stringify(body.errors));
    return body.data.node.sessions.edges.map((e: { node: { sessionId: string } }) => e.node.sessionId).sort();
  };
  assert.equal(await sessions('trace_count == 2'), ['s1']);
  assert.equal(await sessions("'weather' in input.value"), ['s2']);
  assert.equal(await sessions("status_code == 'ERROR'"), ['s1']);
});

test('full-text search finds words in names, inputs and outputs, case-insensitively', async (ctx) => {
  assert.equal(await restSpans(ctx.server, 'search=APPROVED'), ['llm A']);
  assert.equal(await gqlSpans(ctx, null, 'weather'), ['agent D']);
  assert.equal(await gqlSpans(ctx, "span_kind == 'LLM'", 'refund'), ['llm A']);
  assert.equal(await restSpans(ctx.server, `search=${encodeURIComponent('"sorry for the trouble"')}`), ['llm A']);
  assert.equal(await restSpans(ctx.server, 'search=nothinglikethis'), []);
});

test('a span sent now is found by search within seconds, with nobody waiting for its words', async (ctx) => {
  const late = spanRecord({ traceId: newTraceId(), name: 'late E', attributes: attrs({ 'input.value': 'zanzibar shipping' }) });
  await seed(ctx.server, 'filters', [late]);
  const listed = Date.now();
  let names: string[] = [];
  while (Date.now() - listed < 5000) {
    names = await restSpans(ctx.server, 'search=zanzibar');
    if (names.length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(names, ['late E'], 'found within 5 s of being listed');
});

test('malformed or hostile expressions are a 422 naming the position, never a 500', async (ctx) => {
  const cases: readonly [string, number][] = [
    ['latency_ms >', 12],
    ['attributes[', 11],
    ["__import__('os')", 10],
    ["name == 'unbalanced", 8],
    ['x'.repeat(10_000), 2000],
    ["latency_ms > 'slow'", 13],
    ['no_such_column == 1', 0],
    ["start_time > 'yesterday'", 13],
    [`${'('.repeat(100)}name == 'a'${')'.repeat(100)}`, 32],
    ["name == 'a' and", 15],
    ["name == 'a'; DROP TABLE spans", 11],
  ];
  for (const [filter, position] of cases) {
    const r = await callJson(ctx.server, 'GET', `/v1/projects/filters/spans?filter=${encodeURIComponent(filter)}`);
    assert.is(r.status, 422, `${filter.slice(0, 40)}: ${r.text}`);
    assert.is(r.body.code, 'invalid_filter');
    assert.match(r.body.detail, `at position ${position}:`, filter.slice(0, 40));
    const gql = await callJson(ctx.server, 'POST', '/graphql', {
      query: `query ($id: ID!, $f: String) { node(id: $id) { ... on Project { spans(first: 1, filterCondition: $f) { edges { node { name } } } } } }`,
      variables: { id: ctx.projectGid, f: filter },
    });
    assert.ok(gql.status < 500, gql.text);
    assert.is(gql.body.errors?.[0]?.extensions?.code, 'invalid_filter', gql.text);
  }
  const traces = await callJson(ctx.server, 'GET', `/v1/projects/filters/traces?filter=${encodeURIComponent('span_count >')}`);
  assert.is(traces.status, 422);
});

test('a lone UTF-16 surrogate in a GraphQL filterCondition is invalid_filter naming its position, for spans, traces and sessions', async (ctx) => {
  for (const connection of ['spans', 'traces', 'sessions']) {
    for (const [filter, position] of [
      ["name == 'a\ud800'", 10],
      ["'\udc00' in input.value", 1],
      ["name == '\ud83d\ude00' or name == 'b\udbff'", 26],
    ] as const) {
      const gql = await callJson(ctx.server, 'POST', '/graphql', {
        query: `query ($id: ID!, $f: String) { node(id: $id) { ... on Project { ${connection}(first: 1, filterCondition: $f) { edges { cursor } } } } }`,
        variables: { id: ctx.projectGid, f: filter },
      });
      const error = gql.body.errors?.[0];
      assert.is(error?.extensions?.code, 'invalid_filter', `${connection} ${filter}: ${gql.text}`);
      assert.match(error.message, `at position ${position}:`);
      assert.match(error.message, 'surrogate');
    }
  }
});

test.run();
