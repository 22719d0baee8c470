import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, seed } from '../../support/restClient.ts';
import { attrs, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer }>('project metrics over GraphQL', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const METRICS = `query ($id: ID!, $range: TimeRange!, $bucket: String) {
  node(id: $id) { ... on Project { metrics(timeRange: $range, bucket: $bucket) {
    bucket points { time traceCount errorCount errorRate latencyMsP50 latencyMsP95 latencyMsP99 tokenCountPrompt tokenCountCompletion cost }
    scores { name points { time mean count } } } } } }`;

test('a day of traces in hour buckets: counts, error rate, latency quantiles, tokens, cost and mean scores', async ({ server }) => {
  const llm = (at: string, ms: number, error: boolean) => {
    const traceId = newTraceId();
    return spanRecord({
      traceId,
      spanKind: 'LLM',
      status: { code: error ? 'ERROR' : 'OK', message: '' },
      startTimeUnixNano: nanos(at),
      endTimeUnixNano: nanos(at, BigInt(ms) * 1_000_000n),
      attributes: attrs({
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'gpt-4o-mini',
        'llm.token_count.prompt': 100,
        'llm.token_count.completion': 10,
      }),
    });
  };
  const spans = [
    llm('2026-11-20T10:05:00Z', 100, false),
    llm('2026-11-20T10:20:00Z', 200, true),
    llm('2026-11-20T10:40:00Z', 300, false),
    llm('2026-11-20T10:50:00Z', 400, false),
    llm('2026-11-20T13:00:00Z', 1000, false),
    llm('2026-11-21T13:00:00Z', 1000, false), // outside the range
  ];
  await seed(server, 'metrics', spans);
  for (const [span, score] of [
    [spans[0]!, 1],
    [spans[1]!, 0],
    [spans[4]!, 0.5],
  ] as const) {
    const r = await callJson(server, 'POST', '/v1/span_annotations?sync=true', {
      data: [{ span_id: span.spanId, name: 'correct', annotator_kind: 'HUMAN', result: { score } }],
    });
    assert.is(r.status, 200, r.text);
  }
  const projects = await callJson(server, 'POST', '/graphql', { query: '{ projects(first: 10) { edges { node { id name } } } }' });
  const id = projects.body.data.projects.edges.find((e: { node: { name: string } }) => e.node.name === 'metrics').node.id;
  const reply = await callJson(server, 'POST', '/graphql', {
    query: METRICS,
    variables: { id, range: { start: '2026-11-20T00:00:00Z', end: '2026-11-21T00:00:00Z' } },
  });
  assert.is(reply.body.errors, undefined, JSON.stringify(reply.body.errors));
  const m = reply.body.data.node.metrics;
  assert.is(m.bucket, 'hour', 'a day fits in hours');
  assert.equal(
    m.points.map((p: { time: string; traceCount: number; errorCount: number }) => [p.time, p.traceCount, p.errorCount]),
    [
      ['2026-11-20T10:00:00.000000Z', 4, 1],
      ['2026-11-20T13:00:00.000000Z', 1, 0],
    ],
  );
  const ten = m.points[0];
  assert.is(ten.errorRate, 0.25);
  // Hour buckets read the rollup's latency histogram: within a bin (5 %) of percentile_cont's 250, 385, 397.
  const within = (actual: number, exact: number) => Math.abs(actual - exact) / exact <= 0.05;
  assert.ok(within(ten.latencyMsP50, 250) && within(ten.latencyMsP95, 385) && within(ten.latencyMsP99, 397), JSON.stringify(ten));
  assert.equal([ten.tokenCountPrompt, ten.tokenCountCompletion], [400, 40]);
  assert.ok(Math.abs(ten.cost - 4 * (100 * 1.5e-7 + 10 * 6e-7)) < 1e-12);
  assert.equal(m.scores, [
    {
      name: 'correct',
      points: [
        { time: '2026-11-20T10:00:00.000000Z', mean: 0.5, count: 2 },
        { time: '2026-11-20T13:00:00.000000Z', mean: 0.5, count: 1 },
      ],
    },
  ]);

  const minutes = await callJson(server, 'POST', '/graphql', {
    query: METRICS,
    variables: { id, range: { start: '2026-11-20T10:00:00Z', end: '2026-11-20T11:00:00Z' } },
  });
  assert.is(minutes.body.data.node.metrics.bucket, 'minute', 'zoomed in to an hour: minutes');
  assert.is(minutes.body.data.node.metrics.points.length, 4);
  assert.equal(
    minutes.body.data.node.metrics.points.map((p: { latencyMsP50: number }) => p.latencyMsP50),
    [100, 200, 300, 400],
    'minute buckets read the traces: exact',
  );
  // A range that is not whole hours: its partial hours come from the traces, the whole ones from the rollup.
  const ragged = await callJson(server, 'POST', '/graphql', {
    query: METRICS,
    variables: { id, range: { start: '2026-11-20T10:30:00Z', end: '2026-11-20T20:10:00Z' } },
  });
  assert.equal(
    ragged.body.data.node.metrics.points.map((p: { time: string; traceCount: number }) => [p.time, p.traceCount]),
    [
      ['2026-11-20T10:00:00.000000Z', 2],
      ['2026-11-20T13:00:00.000000Z', 1],
    ],
  );
  // Day buckets: the whole day from the rollup's day level, the partial days' whole hours from its hours.
  const days = await callJson(server, 'POST', '/graphql', {
    query: METRICS,
    variables: { id, range: { start: '2026-11-19T12:30:00Z', end: '2026-11-21T12:30:00Z' }, bucket: 'day' },
  });
  assert.equal(
    days.body.data.node.metrics.points.map((p: { time: string; traceCount: number }) => [p.time, p.traceCount]),
    [['2026-11-20T00:00:00.000000Z', 5]],
  );
  const [day20] = days.body.data.node.metrics.points;
  assert.ok(within(day20.latencyMsP50, 300) && within(day20.latencyMsP99, 976), JSON.stringify(day20));
  const bad = await callJson(server, 'POST', '/graphql', {
    query: METRICS,
    variables: { id, range: { start: '2026-11-21T00:00:00Z', end: '2026-11-20T00:00:00Z' } },
  });
  assert.match(bad.body.errors[0].message, 'end must be after start');
});

test.run();
