import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, seed } from '../../support/restClient.ts';
import { attrs, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer; projectId: string; order: string[] }>('sorting traces, spans and sessions by cost', {} as never);

// Prompt tokens of gpt-4o-mini (1.5e-7 USD each): equal costs tie, null (a CHAIN span, an unpriced model) has none.
const PROMPTS = [300, null, 100, 300, 200, null, 100, 50];

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  const spans = PROMPTS.map((prompt, i) => {
    const traceId = newTraceId();
    return spanRecord({
      traceId,
      spanKind: prompt === null ? 'CHAIN' : 'LLM',
      startTimeUnixNano: nanos(`2026-11-20T10:0${i}:00Z`),
      endTimeUnixNano: nanos(`2026-11-20T10:0${i}:00Z`, 1_000_000n),
      attributes: attrs({
        'openinference.span.kind': prompt === null ? 'CHAIN' : 'LLM',
        ...(prompt === null ? {} : { 'llm.model_name': 'gpt-4o-mini', 'llm.token_count.prompt': prompt }),
        'session.id': `session-${i}`,
      }),
    });
  });
  await seed(ctx.server, 'cost-sort', spans);
  ctx.order = spans.map((s) => s.traceId);
  const projects = await callJson(ctx.server, 'POST', '/graphql', { query: '{ projects(first: 10) { edges { node { id name } } } }' });
  ctx.projectId = projects.body.data.projects.edges.find((e: { node: { name: string } }) => e.node.name === 'cost-sort').node.id;
});
test.after(async (ctx) => {
  await ctx.server.close();
});

/**
 * The order the spans were sent in (row ids ascend with it) → their indexes in the expected cost
 * order: by cost, ties by row id in the same direction, the ones without a cost last either way.
 */
const expected = (dir: 'asc' | 'desc'): number[] => {
  const indexes = PROMPTS.map((_, i) => i);
  const sign = dir === 'desc' ? -1 : 1;
  return indexes.sort((a, b) => {
    const [x, y] = [PROMPTS[a], PROMPTS[b]];
    if (x === null || y === null) return x === y ? sign * (a - b) : x === null ? 1 : -1;
    return sign * (x - y) || sign * (a - b);
  });
};

/** Every page of a connection, two rows at a time, by its cursor. */
const allPages = async (server: TestServer, projectId: string, field: string, args: string, select: string): Promise<string[]> => {
  const seen: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < 10; page++) {
    const reply: { body: { data: any; errors?: unknown } } = await callJson(server, 'POST', '/graphql', {
      query: `query ($id: ID!, $after: String) { node(id: $id) { ... on Project { ${field}(first: 2, after: $after, ${args}) {
        edges { node { ${select} } } pageInfo { hasNextPage endCursor } } } } }`,
      variables: { id: projectId, after },
    });
    assert.is(reply.body.errors, undefined, JSON.stringify(reply.body.errors));
    const conn = reply.body.data.node[field];
    seen.push(...conn.edges.map((e: { node: Record<string, unknown> }) => JSON.stringify(e.node)));
    if (!conn.pageInfo.hasNextPage) return seen;
    after = conn.pageInfo.endCursor;
  }
  throw new Error('more than 10 pages');
};

for (const dir of ['desc', 'asc'] as const) {
  test(`GraphQL traces, spans and sessions by cost ${dir}, two a page: priced by cost (ties by row id), unpriced last, none skipped or repeated`, async (ctx) => {
    const want = expected(dir).map((i) => ctx.order[i]!);
    const traces = await allPages(ctx.server, ctx.projectId, 'traces', `sort: { col: costTotal, dir: ${dir} }`, 'traceId');
    assert.equal(
      traces.map((t) => JSON.parse(t).traceId),
      want,
      'traces',
    );
    const spans = await allPages(ctx.server, ctx.projectId, 'spans', `sort: { col: costTotal, dir: ${dir} }`, 'context { traceId }');
    assert.equal(
      spans.map((s) => JSON.parse(s).context.traceId),
      want,
      'spans',
    );
    const sessions = await allPages(ctx.server, ctx.projectId, 'sessions', `sort: { col: costTotal, dir: ${dir} }`, 'sessionId');
    assert.equal(
      sessions.map((s) => JSON.parse(s).sessionId),
      expected(dir).map((i) => `session-${i}`),
      'sessions',
    );
  });
}

test('REST traces sort=cost_total pages by cost with its cursor, unpriced last', async (ctx) => {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const r = await callJson(
      ctx.server,
      'GET',
      `/v1/projects/cost-sort/traces?sort=cost_total&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
    );
    assert.is(r.status, 200, r.text);
    seen.push(...r.body.data.map((t: { trace_id: string }) => t.trace_id));
    cursor = r.body.next_cursor;
  } while (cursor !== null);
  assert.equal(
    seen,
    expected('desc').map((i) => ctx.order[i]!),
  );
  const bad = await callJson(ctx.server, 'GET', '/v1/projects/cost-sort/traces?sort=cost');
  assert.is(bad.status, 422);
  assert.match(bad.text, 'sort');
});

test.run();
