import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPostgresEventStore } from '../../../domain/eventstore/postgresEventStore.ts';
import type { StoredEvent } from '../../../domain/eventstore/types.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { rebuildProjection } from '../../../projections/rebuildProjection.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { callJson, eventually } from '../../support/restClient.ts';
import { attrs, batch, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { wholeLog } from '../../support/wholeLog.ts';

const test = suite<{ server: TestServer }>('deletion, erasure and retention take costs with them', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer({ env: { SERVICE_DEFAULT_RETENTION_POLICY_DAYS: '7' } });
});
test.after(async (ctx) => {
  await ctx.server.close();
});

// The table's prices (domain/prices/model-prices.csv).
const MINI = { input: 1.5e-7, output: 6e-7 };
const SONNET = { input: 3e-6, output: 1.5e-5 };
const usd = (price: typeof MINI, prompt: number, completion: number) => prompt * price.input + completion * price.output;
const near = (actual: unknown, expected: number, what: string) =>
  assert.ok(typeof actual === 'number' && Math.abs(actual - expected) < 1e-12, `${what}: ${actual} ≠ ${expected}`);

const HOUR = 3_600_000;
const llm = (
  traceId: string,
  startMs: number,
  model: string,
  prompt: number,
  completion: number,
  session: string,
  parentId: string | null = null,
) =>
  spanRecord({
    traceId,
    parentId,
    spanKind: 'LLM',
    startTimeUnixNano: (BigInt(startMs) * 1_000_000n).toString(),
    endTimeUnixNano: (BigInt(startMs + 2000) * 1_000_000n).toString(),
    attributes: attrs({
      'openinference.span.kind': 'LLM',
      'llm.model_name': model,
      'llm.token_count.prompt': prompt,
      'llm.token_count.completion': completion,
      'session.id': session,
    }),
  });

const everything = (server: TestServer): Promise<StoredEvent[]> => wholeLog(server.store);

const gql = async (server: TestServer, query: string, variables: Record<string, unknown>) => {
  const reply = await callJson(server, 'POST', '/graphql', { query, variables });
  assert.is(reply.body.errors, undefined, JSON.stringify(reply.body.errors));
  return reply.body.data;
};

test('a deleted span, a deleted trace and an expired trace take their costs out of trace, session, project and metrics totals, after erasure and after a rebuild from the erased log', async ({
  server,
}) => {
  const now = Date.now();
  const [t1, t2, t3, old] = [newTraceId(), newTraceId(), newTraceId(), newTraceId()];
  const mini1 = llm(t1, now - 2 * HOUR, 'gpt-4o-mini', 1000, 100, 'spend-1');
  const sonnet1 = llm(t1, now - 2 * HOUR + 500, 'claude-sonnet-4-5', 1000, 100, 'spend-1', mini1.spanId);
  const mini2 = llm(t2, now - 2 * HOUR + 60_000, 'gpt-4o-mini', 500, 50, 'spend-1');
  const sonnet3 = llm(t3, now - 3 * HOUR, 'claude-sonnet-4-5', 2000, 200, 'spend-2');
  const expiring = llm(old, now - 10 * 24 * HOUR, 'gpt-4o-mini', 10_000, 1000, 'spend-3');
  const position = await ingestSpans(server.store, [batch('spend', [mini1, sonnet1, mini2, sonnet3, expiring])], {
    actor: 'test',
    requestId: null,
  });
  await server.runner.waitFor(position!, 60_000);
  const projectId = (await gql(server, '{ projects(first: 20) { edges { node { id name } } } }', {})).projects.edges.find(
    (e: { node: { name: string } }) => e.node.name === 'spend',
  ).node.id;

  /** Every total the pages show: per trace and session, the project's, and the metrics series summed. */
  const totals = async () => {
    const traces = (await callJson(server, 'GET', '/v1/projects/spend/traces?limit=100')).body.data as {
      trace_id: string;
      cost: { total: number } | null;
    }[];
    const session = async (id: string) => {
      const r = await callJson(server, 'GET', `/v1/sessions/${id}`);
      return r.status === 404 ? 'gone' : (r.body.data.cost?.total ?? null);
    };
    const range = { start: new Date(now - 12 * 24 * HOUR).toISOString(), end: new Date(now + HOUR).toISOString() };
    const data = await gql(
      server,
      `query ($id: ID!, $range: TimeRange!) { node(id: $id) { ... on Project {
        summary(timeRange: $range) { cost { total } }
        metrics(timeRange: $range, bucket: "hour") { points { cost } }
        days: metrics(timeRange: $range) { bucket points { cost } } } } }`,
      { id: projectId, range },
    );
    const sum = (points: { cost: number | null }[]) => points.reduce((n, p) => n + (p.cost ?? 0), 0);
    assert.is(data.node.days.bucket, 'day');
    return {
      traces: Object.fromEntries(traces.map((t) => [t.trace_id, t.cost?.total ?? null])),
      sessions: Object.fromEntries(
        await Promise.all(['spend-1', 'spend-2', 'spend-3'].map(async (id) => [id, await session(id)])),
      ) as Record<string, number | 'gone' | null>,
      project: data.node.summary.cost?.total ?? null,
      hours: sum(data.node.metrics.points),
      days: sum(data.node.days.points),
    };
  };
  const check = (
    got: Awaited<ReturnType<typeof totals>>,
    want: { traces: Record<string, number>; sessions: Record<string, number | 'gone'>; what: string },
  ) => {
    assert.equal(Object.keys(got.traces).sort(), Object.keys(want.traces).sort(), `${want.what}: the traces listed`);
    for (const [id, cost] of Object.entries(want.traces)) near(got.traces[id], cost, `${want.what}: trace ${id}`);
    for (const [id, cost] of Object.entries(want.sessions)) {
      if (cost === 'gone') assert.is(got.sessions[id], 'gone', `${want.what}: session ${id} is gone`);
      else near(got.sessions[id], cost, `${want.what}: session ${id}`);
    }
    const project = Object.values(want.traces).reduce((a, b) => a + b, 0);
    near(got.project, project, `${want.what}: project summary`);
    near(got.hours, project, `${want.what}: the metrics' hour buckets`);
    near(got.days, project, `${want.what}: the metrics' day buckets`);
  };

  const c = {
    mini1: usd(MINI, 1000, 100),
    sonnet1: usd(SONNET, 1000, 100),
    mini2: usd(MINI, 500, 50),
    sonnet3: usd(SONNET, 2000, 200),
    old: usd(MINI, 10_000, 1000),
  };
  check(await totals(), {
    what: 'before',
    traces: { [t1]: c.mini1 + c.sonnet1, [t2]: c.mini2, [t3]: c.sonnet3, [old]: c.old },
    sessions: { 'spend-1': c.mini1 + c.sonnet1 + c.mini2, 'spend-2': c.sonnet3, 'spend-3': c.old },
  });

  assert.is((await callJson(server, 'DELETE', `/v1/spans/${sonnet1.spanId}`)).status, 204);
  assert.is((await callJson(server, 'DELETE', `/v1/traces/${t3}`)).status, 204);
  await server.reactors.runSchedule('retention');
  // Each removal reaches the log (the erasure reactor): the span's, the trace's and retention's.
  const removals = await eventually(
    async () => (await everything(server)).filter((e) => e.type === 'ContentRemoved'),
    (found) => found.length === 3,
  );
  assert.equal(removals.map((r) => (r.data as { kind: string }).kind).sort(), ['erasure', 'erasure', 'retention']);
  await server.runner.catchUp();
  const after = {
    traces: { [t1]: c.mini1, [t2]: c.mini2 },
    sessions: { 'spend-1': c.mini1 + c.mini2, 'spend-2': 'gone' as const, 'spend-3': 'gone' as const },
  };
  check(await totals(), { ...after, what: 'after deletion, erasure and retention' });

  // The log no longer holds what was removed: a replay gives the same totals, rollup included.
  const storeInTransaction = server.config.database.eventStoreUrl ? undefined : createPostgresEventStore;
  await rebuildProjection(server.pool, server.store, tracingProjection, { batchSize: 2, storeInTransaction });
  check(await totals(), { ...after, what: 'after a rebuild from the erased log' });
});

test.run();
