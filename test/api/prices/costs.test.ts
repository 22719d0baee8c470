import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { START } from '../../../domain/eventstore/types.ts';
import { authEnv, callAs, createUser, login, type Credentials } from '../../support/authClient.ts';
import { eventually, seed } from '../../support/restClient.ts';
import { attrs, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Ctx = { server: TestServer; admin: Credentials; member: Credentials };
const test = suite<Ctx>('costs and prices over HTTP', {} as Ctx);
test.before(async (ctx) => {
  const env = authEnv();
  ctx.server = await startTestServer({ env });
  ctx.admin = { bearer: env.SERVICE_ADMIN_SECRET };
  await createUser(ctx.server, ctx.admin, { email: 'mia@example.com', username: 'mia', role: 'MEMBER', password: 'mia-pw-123' });
  ctx.member = await login(ctx.server, 'mia@example.com', 'mia-pw-123');
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const near = (actual: unknown, expected: number, what: string) =>
  assert.ok(typeof actual === 'number' && Math.abs(actual - expected) < 1e-12, `${what}: ${actual} ≠ ${expected}`);

const llm = (traceId: string, model: string, at: string, prompt: number, completion: number, parentId: string | null = null) =>
  spanRecord({
    traceId,
    parentId,
    spanKind: 'LLM',
    startTimeUnixNano: nanos(at),
    endTimeUnixNano: nanos(at, 5_000_000n),
    attributes: attrs({
      'openinference.span.kind': 'LLM',
      'llm.model_name': model,
      'llm.token_count.prompt': prompt,
      'llm.token_count.completion': completion,
      'session.id': `s-${traceId}`,
    }),
  });

// The table's prices (domain/prices/model-prices.csv).
const MINI = { input: 1.5e-7, output: 6e-7 };
const SONNET = { input: 3e-6, output: 1.5e-5 };

test('gpt-4o-mini and claude-sonnet-4-5 spans cost tokens × the table prices on span, trace, session and project; an unknown model none, and named', async ({
  server,
  admin,
}) => {
  const t = newTraceId();
  const mini = llm(t, 'gpt-4o-mini', '2026-11-20T10:00:00Z', 1200, 340);
  const sonnet = llm(t, 'claude-sonnet-4-5', '2026-11-20T10:00:01Z', 2500, 800, mini.spanId);
  const unknown = llm(newTraceId(), 'house-model-7b', '2026-11-20T10:00:02Z', 100, 100);
  await seed(server, 'costs', [mini, sonnet, unknown]);
  const miniCost = { prompt: 1200 * MINI.input, completion: 340 * MINI.output };
  const sonnetCost = { prompt: 2500 * SONNET.input, completion: 800 * SONNET.output };
  const total = miniCost.prompt + miniCost.completion + sonnetCost.prompt + sonnetCost.completion;

  const spans = (await callAs(server, 'GET', '/v1/projects/costs/spans?limit=10', { as: admin })).body.data as {
    context: { span_id: string };
    cost: { prompt: number; completion: number; total: number } | null;
  }[];
  const bySpan = new Map(spans.map((s) => [s.context.span_id, s.cost]));
  near(bySpan.get(mini.spanId)!.prompt, miniCost.prompt, 'span prompt');
  near(bySpan.get(mini.spanId)!.completion, miniCost.completion, 'span completion');
  near(bySpan.get(sonnet.spanId)!.total, sonnetCost.prompt + sonnetCost.completion, 'span total');
  assert.is(bySpan.get(unknown.spanId), null, 'a model without a price: no cost');

  const traces = (await callAs(server, 'GET', '/v1/projects/costs/traces', { as: admin })).body.data as {
    trace_id: string;
    cost: { total: number } | null;
  }[];
  near(traces.find((x) => x.trace_id === t)!.cost!.total, total, 'trace');
  assert.is(traces.find((x) => x.trace_id === unknown.traceId)!.cost, null);

  const session = (await callAs(server, 'GET', `/v1/sessions/s-${t}`, { as: admin })).body.data;
  near(session.cost.total, total, 'session');

  const gql = await callAs(server, 'POST', '/graphql', {
    as: admin,
    json: {
      query: `{ projects(first: 10) { edges { node { name summary { cost { prompt completion total } } unpricedModels } } } }`,
    },
  });
  const project = (
    gql.body.data.projects.edges as { node: { name: string; summary: { cost: { total: number } }; unpricedModels: string[] } }[]
  ).find((e) => e.node.name === 'costs')!.node;
  near(project.summary.cost.total, total, 'project card');
  assert.equal(project.unpricedModels, ['house-model-7b']);
});

test('an admin price takes effect from its date (earlier spans keep their cost), is an event with its actor; members get 403', async ({
  server,
  admin,
  member,
}) => {
  const early = llm(newTraceId(), 'gpt-4o-mini', '2026-10-15T00:00:00Z', 1000, 1000);
  const late = llm(newTraceId(), 'gpt-4o-mini', '2026-11-15T00:00:00Z', 1000, 1000);
  await seed(server, 'repriced', [early, late]);
  const body = {
    model: 'gpt-4o-mini',
    name_pattern: 'gpt-4o-mini',
    effective_from: '2026-11-01T00:00:00Z',
    prices: [
      { token_type: 'input', usd_per_token: 1e-6 },
      { token_type: 'output', usd_per_token: 4e-6 },
    ],
  };
  const refused = await callAs(server, 'POST', '/v1/model_prices', { as: member, json: body });
  assert.is(refused.status, 403);
  const bad = await callAs(server, 'POST', '/v1/model_prices', { as: admin, json: { ...body, name_pattern: 'gpt-(' } });
  assert.is(bad.status, 400);
  assert.match(bad.body.detail, 'name_pattern');
  const set = await callAs(server, 'POST', '/v1/model_prices', { as: admin, json: body });
  assert.is(set.status, 201);
  assert.equal(
    [set.body.data.source, set.body.data.effective_from, set.body.data.set_by],
    ['custom', '2026-11-01T00:00:00.000Z', 'system'],
  );
  const events = (await server.store.readAll(START, 100_000)).filter((e) => e.type === 'ModelPriceSet');
  assert.is(events.length, 1);
  assert.is(events[0]!.metadata.actor, 'system', 'the admin secret acts as the system user');

  const costOf = async (spanId: string) =>
    (
      (await callAs(server, 'GET', '/v1/projects/repriced/spans', { as: admin })).body.data as {
        context: { span_id: string };
        cost: { total: number };
      }[]
    ).find((s) => s.context.span_id === spanId)!.cost.total;
  const repriced = 1000 * 1e-6 + 1000 * 4e-6;
  await eventually(
    () => costOf(late.spanId),
    (c) => Math.abs(c - repriced) < 1e-12,
  );
  near(await costOf(late.spanId), repriced, 'after the date: the new price (repriced in the background)');
  near(await costOf(early.spanId), 1000 * MINI.input + 1000 * MINI.output, 'before the date: the table price still');

  const listed = (await callAs(server, 'GET', '/v1/model_prices?source=custom', { as: member })).body.data;
  assert.is(listed.length, 1, 'members read prices');
  const builtIn = (await callAs(server, 'GET', '/v1/model_prices?model=gpt-4o-mini', { as: member })).body.data;
  assert.equal(
    builtIn.map((p: { source: string }) => p.source),
    ['built_in', 'custom'],
  );
  assert.is(
    (await callAs(server, 'DELETE', '/v1/model_prices?model=gpt-4o-mini&effective_from=2026-11-01T00:00:00Z', { as: member })).status,
    403,
  );
  assert.is(
    (await callAs(server, 'DELETE', '/v1/model_prices?model=gpt-4o-mini&effective_from=2026-11-01T00:00:00Z', { as: admin })).status,
    204,
  );
  assert.is(
    (await callAs(server, 'DELETE', '/v1/model_prices?model=gpt-4o-mini&effective_from=2026-11-01T00:00:00Z', { as: admin })).status,
    404,
  );
  const gqlRefused = await callAs(server, 'POST', '/graphql', {
    as: member,
    json: {
      query: `mutation { setModelPrice(input: { model: "x", namePattern: "x", effectiveFrom: "2026-01-01T00:00:00Z", prices: [{ tokenType: "input", usdPerToken: 1e-6 }] }) { model } }`,
    },
  });
  assert.is(gqlRefused.body.errors[0].extensions.status, 403, 'GraphQL: members may not set prices');
});

test('a price dated outside years 1–9999 is a 422 naming effective_from over REST, a client error over GraphQL; so is a year-0 timeRange', async ({
  server,
  admin,
}) => {
  const body = {
    model: 'ancient',
    name_pattern: 'ancient',
    prices: [{ token_type: 'input', usd_per_token: 1e-6 }],
  };
  for (const effective_from of ['0000-01-01T00:00:00Z', '+099999-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00']) {
    const r = await callAs(server, 'POST', '/v1/model_prices', { as: admin, json: { ...body, effective_from } });
    assert.is(r.status, 422, `${effective_from}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.detail, 'effective_from');
    const gone = await callAs(server, 'DELETE', `/v1/model_prices?model=ancient&effective_from=${encodeURIComponent(effective_from)}`, {
      as: admin,
    });
    assert.is(gone.status, 422, `DELETE ${effective_from}`);
    const gql = await callAs(server, 'POST', '/graphql', {
      as: admin,
      json: {
        query: `mutation ($at: String!) { setModelPrice(input: { model: "ancient", namePattern: "ancient", effectiveFrom: $at, prices: [{ tokenType: "input", usdPerToken: 1e-6 }] }) { model } }`,
        variables: { at: effective_from },
      },
    });
    assert.is(gql.body.errors?.[0]?.extensions?.code, 'effective_from_invalid', JSON.stringify(gql.body));
    assert.ok(gql.body.errors[0].extensions.status < 500);
  }
  const events = (await server.store.readAll(START, 100_000)).filter(
    (e) => e.type === 'ModelPriceSet' && (e.data as { model?: string }).model === 'ancient',
  );
  assert.is(events.length, 0, 'nothing was appended');
  for (const start of ['0000-01-01T00:00:00Z', '+099999-01-01T00:00:00Z']) {
    const range = await callAs(server, 'POST', '/graphql', {
      as: admin,
      json: {
        query: `query ($start: DateTime!) { projects(first: 1) { edges { node { summary(timeRange: { start: $start }) { traceCount } } } } }`,
        variables: { start },
      },
    });
    assert.ok(range.status < 500, JSON.stringify(range.body));
    assert.is(range.body.data, undefined, 'refused before it runs');
    assert.match(range.body.errors?.[0]?.message ?? '', `"${start}" is not`);
    assert.not.equal(range.body.errors[0].extensions?.code, 'internal_error');
  }
});

test('with (a+)+ stored as a price pattern, a span whose model is 33 a’s and "!" is projected and listed (no backtracking), and one of 40 a’s is priced', async ({
  server,
  admin,
}) => {
  const set = await callAs(server, 'POST', '/v1/model_prices', {
    as: admin,
    json: {
      model: 'evil',
      name_pattern: '(a+)+',
      effective_from: '2020-01-01T00:00:00Z',
      prices: [{ token_type: 'input', usd_per_token: 1e-6 }],
    },
  });
  assert.is(set.status, 201);
  const hostile = llm(newTraceId(), `${'a'.repeat(33)}!`, '2026-11-20T10:00:00Z', 1000, 0);
  const priced = llm(newTraceId(), 'a'.repeat(40), '2026-11-20T10:00:00Z', 1000, 0);
  await seed(server, 'evil-pattern', [hostile, priced]);
  const spans = (await callAs(server, 'GET', '/v1/projects/evil-pattern/spans', { as: admin })).body.data as {
    context: { span_id: string };
    cost: { total: number } | null;
  }[];
  const bySpan = new Map(spans.map((x) => [x.context.span_id, x.cost]));
  assert.is(bySpan.get(hostile.spanId), null, 'listed, unpriced');
  near(bySpan.get(priced.spanId)?.total, 1000 * 1e-6, 'priced by the pattern');
  const backref = await callAs(server, 'POST', '/v1/model_prices', {
    as: admin,
    json: {
      model: 'evil2',
      name_pattern: '(a)\\1',
      effective_from: '2020-01-01T00:00:00Z',
      prices: [{ token_type: 'input', usd_per_token: 1e-6 }],
    },
  });
  assert.ok(backref.status === 400 || backref.status === 422, JSON.stringify(backref.body));
  assert.match(backref.body.detail, 'name_pattern');
});

test('an experiment run shows the cost of its trace; the experiment the sum of its runs’ (REST and GraphQL), null while none is priced', async ({
  server,
  admin,
}) => {
  const up = (await callAs(server, 'POST', '/v1/datasets/upload?sync=true', { as: admin, json: { name: 'cost-ds', inputs: [{ q: 1 }] } }))
    .body.data;
  const examples = (await callAs(server, 'GET', `/v1/datasets/${up.dataset_id}/examples`, { as: admin })).body.data.examples as {
    node_id: string;
  }[];
  const experiment = (
    await callAs(server, 'POST', `/v1/datasets/${up.dataset_id}/experiments`, { as: admin, json: { name: 'cost-x', repetitions: 3 } })
  ).body.data;
  const t = newTraceId();
  await seed(server, experiment.project_name, [llm(t, 'gpt-4o-mini', '2026-10-20T10:00:00Z', 2000, 1000)]);
  const run = await callAs(server, 'POST', `/v1/experiments/${experiment.id}/runs`, {
    as: admin,
    json: {
      dataset_example_id: examples[0]!.node_id,
      output: 'a',
      repetition_number: 1,
      trace_id: t,
      start_time: '2026-11-20T10:00:00Z',
      end_time: '2026-11-20T10:00:01Z',
    },
  });
  assert.is(run.status, 200);
  const rows = (await callAs(server, 'GET', `/v1/experiments/${experiment.id}/json`, { as: admin })).body as { cost: { total: number } }[];
  near(rows[0]!.cost.total, 2000 * MINI.input + 1000 * MINI.output, 'run cost');

  // A second repetition on a Sonnet trace, and a run whose trace has only an unpriced model.
  const t2 = newTraceId();
  const t3 = newTraceId();
  await seed(server, experiment.project_name, [
    llm(t2, 'claude-sonnet-4-5', '2026-10-20T10:00:00Z', 100, 10),
    llm(t3, 'house-model-7b', '2026-10-20T10:00:00Z', 100, 10),
  ]);
  for (const [repetition, traceId] of [
    [2, t2],
    [3, t3],
  ] as const) {
    const more = await callAs(server, 'POST', `/v1/experiments/${experiment.id}/runs`, {
      as: admin,
      json: {
        dataset_example_id: examples[0]!.node_id,
        output: 'b',
        repetition_number: repetition,
        trace_id: traceId,
        start_time: '2026-11-20T10:00:00Z',
        end_time: '2026-11-20T10:00:01Z',
      },
    });
    assert.is(more.status, 200, JSON.stringify(more.body));
  }
  const prompt = 2000 * MINI.input + 100 * SONNET.input;
  const completion = 1000 * MINI.output + 10 * SONNET.output;
  const one = (await callAs(server, 'GET', `/v1/experiments/${experiment.id}`, { as: admin })).body.data;
  near(one.cost.prompt, prompt, 'experiment prompt');
  near(one.cost.completion, completion, 'experiment completion');
  near(one.cost.total, prompt + completion, 'experiment total');
  const listed = (await callAs(server, 'GET', `/v1/datasets/${up.dataset_id}/experiments`, { as: admin })).body.data as {
    id: string;
    cost: { total: number } | null;
  }[];
  near(listed.find((x) => x.id === experiment.id)!.cost!.total, prompt + completion, 'experiment in the list');
  const gql = await callAs(server, 'POST', '/graphql', {
    as: admin,
    json: {
      query: `query ($id: ID!) { node(id: $id) { ... on Experiment { cost { prompt completion total } } } }`,
      variables: { id: experiment.id },
    },
  });
  assert.is(gql.body.errors, undefined, JSON.stringify(gql.body.errors));
  near(gql.body.data.node.cost.total, prompt + completion, 'GraphQL experiment cost');

  const bare = (await callAs(server, 'POST', `/v1/datasets/${up.dataset_id}/experiments`, { as: admin, json: { name: 'no-runs' } })).body
    .data;
  assert.is((await callAs(server, 'GET', `/v1/experiments/${bare.id}`, { as: admin })).body.data.cost, null, 'no runs: no cost');
});

test.run();
