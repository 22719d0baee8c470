import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deleteModelPrice, setModelPrice } from '../../../domain/prices/priceCommands.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { workOffCostJob } from '../../../projections/prices/costReactor.ts';
import { attrs, batch, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { context, dumpTracing, rows, tracingHarness, type Harness } from './tracingHarness.ts';

const test = suite<{ h: Harness }>('tracing costs', {} as { h: Harness });
test.before.each(async (ctx) => {
  ctx.h = await tracingHarness();
});
test.after.each(async (ctx) => {
  await ctx.h.db.close();
});

const near = (actual: unknown, expected: number, what: string) =>
  assert.ok(typeof actual === 'number' && Math.abs(actual - expected) < 1e-12, `${what}: ${actual} ≠ ${expected}`);

const llm = (traceId: string, model: string, at: string, prompt: number, completion: number, extra: Record<string, string | number> = {}) =>
  spanRecord({
    traceId,
    spanKind: 'LLM',
    startTimeUnixNano: nanos(at),
    endTimeUnixNano: nanos(at, 1_000_000n),
    attributes: attrs({
      'openinference.span.kind': 'LLM',
      'llm.model_name': model,
      'llm.token_count.prompt': prompt,
      'llm.token_count.completion': completion,
      'session.id': 'sess',
      ...extra,
    }),
  });

const spanCosts = (h: Harness) =>
  rows(h.db.pool, sql.unsafe`SELECT llm_model_name AS model, cost_prompt, cost_completion, cost_total FROM spans ORDER BY id`);
const drain = async (h: Harness) => {
  while (await workOffCostJob(h.db.pool, 2)) {
    // chunk by chunk, as the reactor does
  }
};

test('LLM spans are priced at ingest from the built-in table and summed into their trace and session; an unknown model costs nothing', async ({
  h,
}) => {
  const t = newTraceId();
  const mini = llm(t, 'gpt-4o-mini', '2026-11-01T00:00:00Z', 1000, 500, { 'llm.provider': 'openai' });
  const sonnet = llm(t, 'claude-sonnet-4-5', '2026-11-01T00:00:01Z', 2000, 300, { 'llm.token_count.prompt_details.cache_read': 1000 });
  const unknown = llm(newTraceId(), 'my-local-llama', '2026-11-01T00:00:02Z', 50, 50);
  const chain = spanRecord({
    traceId: t,
    spanKind: 'CHAIN',
    attributes: attrs({ 'llm.model_name': 'gpt-4o-mini', 'llm.token_count.prompt': 5 }),
  });
  await ingestSpans(h.store, [batch('shop', [mini, sonnet, unknown, chain])], context);
  await h.project();
  const spans = await spanCosts(h);
  const miniCost = { prompt: 1000 * 1.5e-7, completion: 500 * 6e-7 };
  const sonnetCost = { prompt: 1000 * 3e-6 + 1000 * 3e-7, completion: 300 * 1.5e-5 };
  near(spans[0]!.cost_prompt, miniCost.prompt, 'gpt-4o-mini prompt');
  near(spans[0]!.cost_completion, miniCost.completion, 'gpt-4o-mini completion');
  near(spans[0]!.cost_total, miniCost.prompt + miniCost.completion, 'gpt-4o-mini total');
  near(spans[1]!.cost_prompt, sonnetCost.prompt, 'sonnet prompt (cache read at its own price)');
  near(spans[1]!.cost_total, sonnetCost.prompt + sonnetCost.completion, 'sonnet total');
  assert.equal(spans[2], { model: 'my-local-llama', cost_prompt: null, cost_completion: null, cost_total: null });
  assert.equal(spans[3], { model: null, cost_prompt: null, cost_completion: null, cost_total: null }, 'a CHAIN span is never priced');
  const [trace] = await rows(h.db.pool, sql.unsafe`SELECT cost_prompt, cost_total FROM traces WHERE trace_id = ${t}`);
  near(trace!.cost_prompt, miniCost.prompt + sonnetCost.prompt, 'trace prompt');
  near(trace!.cost_total, miniCost.prompt + miniCost.completion + sonnetCost.prompt + sonnetCost.completion, 'trace total');
  const [session] = await rows(h.db.pool, sql.unsafe`SELECT cost_total FROM sessions`);
  near(session!.cost_total, miniCost.prompt + miniCost.completion + sonnetCost.prompt + sonnetCost.completion, 'session total');
});

test('an admin price takes effect from its date: spans stored before it are repriced by the reactor, earlier ones keep theirs', async ({
  h,
}) => {
  const before = llm(newTraceId(), 'gpt-4o-mini', '2026-10-01T00:00:00Z', 1000, 1000);
  const after = llm(newTraceId(), 'gpt-4o-mini', '2026-11-02T00:00:00Z', 1000, 1000);
  await ingestSpans(h.store, [batch('shop', [before, after])], context);
  await setModelPrice(
    h.store,
    {
      model: 'gpt-4o-mini',
      namePattern: 'gpt-4o-mini',
      provider: null,
      effectiveFrom: '2026-11-01T00:00:00Z',
      prices: [
        { tokenType: 'input', usdPerToken: 1e-6, threshold: null },
        { tokenType: 'output', usdPerToken: 2e-6, threshold: null },
      ],
    },
    { ...context, actor: 'admin-1' },
  );
  const later = llm(newTraceId(), 'gpt-4o-mini', '2026-11-03T00:00:00Z', 1000, 1000);
  await ingestSpans(h.store, [batch('shop', [later])], context);
  await h.project();
  const builtIn = 1000 * 1.5e-7 + 1000 * 6e-7;
  const admin = 1000 * 1e-6 + 1000 * 2e-6;
  let spans = await spanCosts(h);
  near(spans[0]!.cost_total, builtIn, 'before the date');
  near(spans[1]!.cost_total, builtIn, 'stored before the price: repriced only by the reactor');
  near(spans[2]!.cost_total, admin, 'ingested after the price: priced with it at once');
  await drain(h);
  spans = await spanCosts(h);
  near(spans[0]!.cost_total, builtIn, 'before the date, still');
  near(spans[1]!.cost_total, admin, 'repriced');
  const traces = await rows(h.db.pool, sql.unsafe`SELECT cost_total FROM traces ORDER BY id`);
  near(traces[1]!.cost_total, admin, 'its trace summed again');
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT model, set_by FROM model_prices`), [{ model: 'gpt-4o-mini', set_by: 'admin-1' }]);
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT id FROM cost_jobs`), [], 'the job is done');

  await deleteModelPrice(h.store, { model: 'gpt-4o-mini', effectiveFrom: '2026-11-01T00:00:00Z' }, context);
  await h.project();
  await drain(h);
  spans = await spanCosts(h);
  for (const s of spans) near(s.cost_total, builtIn, 'the price taken back: the built-in one again');
});

test('rebuild = live once the reactor is done: replaying the log prices every span the same way', async ({ h }) => {
  await ingestSpans(h.store, [batch('shop', [llm(newTraceId(), 'gpt-4o-mini', '2026-11-02T00:00:00Z', 10, 10)])], context);
  await setModelPrice(
    h.store,
    {
      model: 'gpt-4o-mini',
      namePattern: 'gpt-4o-mini',
      provider: null,
      effectiveFrom: '2026-11-01T00:00:00Z',
      prices: [{ tokenType: 'input', usdPerToken: 1e-6, threshold: null }],
    },
    context,
  );
  await h.project();
  await drain(h);
  const live = await dumpTracing(h.db.pool);
  const events = await h.readEverything();
  await h.db.pool.transaction(async (tx) => {
    for (const table of ['spans', 'traces', 'sessions', 'model_prices', 'cost_jobs'])
      await tx.query(sql.unsafe`DELETE FROM ${sql.identifier([table])}`);
  });
  const { tracingProjection } = await import('../../../projections/tracing/tracingProjection.ts');
  await h.db.pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`DELETE FROM projects`);
    await tx.query(sql.unsafe`UPDATE tracing_ids SET last = 0`);
    await tracingProjection.apply(tx, events);
  });
  await drain(h);
  const rebuilt = await dumpTracing(h.db.pool);
  assert.equal(rebuilt.spans, live.spans);
  assert.equal(rebuilt.traces, live.traces);
  assert.equal(rebuilt.sessions, live.sessions);
  assert.equal(rebuilt.model_prices, live.model_prices);
});

test.run();
