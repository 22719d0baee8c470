import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PRICE_STREAM } from '../../../domain/prices/priceStream.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import type { AttributeValue } from '../../../domain/tracing/attributes.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { rebuildProjection } from '../../../projections/rebuildProjection.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { batch, newSpanId, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { context, dumpTracing, rows, tracingHarness, type Harness } from './tracingHarness.ts';

/**
 * The log as it is: events written before ingest normalised what it stores (or crafted straight
 * into the log) must still be applied, the same way live and in a rebuild, and must not stop the
 * spans that come after them.
 */
const test = suite<{ h: Harness }>('tracing projection: hostile events already in the log', {} as { h: Harness });
test.before.each(async (ctx) => {
  ctx.h = await tracingHarness();
});
test.after.each(async (ctx) => {
  await ctx.h.db.close();
});

const metadata = { actor: 'test', requestId: null, time: '2024-02-01T00:00:00.000Z', causation: 'crafted' };

const appendRaw = (h: Harness, stream: string, type: string, data: unknown) =>
  h.store.appendToStream(stream, [{ type, data: data as never, metadata }], 'any');

const createdRaw = async (h: Harness, name: string, description: string | null = null): Promise<string> => {
  const projectId = randomUUID();
  await appendRaw(h, projectStream(name), 'ProjectCreated', {
    projectId,
    name,
    description,
    gradientStartColor: '#000000',
    gradientEndColor: '#ffffff',
  });
  return projectId;
};

const nested = (levels: number): AttributeValue => {
  let v: AttributeValue = { str: 'bottom' };
  for (let i = 0; i < levels; i++) v = { kvlist: { k: v } };
  return v;
};

const ingestedRaw = (h: Harness, projectId: string, projectName: string, spans: unknown[]) =>
  appendRaw(h, `spans-${projectId}-${randomUUID()}`, 'SpansIngested', {
    projectId,
    projectName,
    resources: [{ 'service.name': { str: 's\u0000' } }],
    spans,
  });

/** Writes every poison the hostile runs found, as raw events that today's ingest would no longer write. */
const writePoison = async (h: Harness) => {
  const nulProject = await createdRaw(h, 'evil\u0000project', 'd\u0000');
  const longProject = await createdRaw(h, 'p'.repeat(8200));
  await createdRaw(h, 'not a uuid either').catch(() => undefined);
  const trace = newTraceId();
  const llm = (attributes: Record<string, AttributeValue>) => spanRecord({ traceId: trace, spanKind: 'LLM', attributes });
  await ingestedRaw(h, nulProject, 'evil\u0000project', [
    spanRecord({
      traceId: newTraceId(),
      name: 'n'.repeat(8200),
      sessionId: 's'.repeat(8200),
      attributes: { 'session.id': { str: 's'.repeat(8200) } },
    }),
    spanRecord({ traceId: newTraceId(), name: 'a\u0000b', status: { code: 'ERROR', message: 'm\u0000' }, sessionId: 'sess\u0000' }),
    llm({ 'llm.token_count.prompt': { int: '9223372036854775807' }, 'llm.token_count.completion': { float: 1e30 } }),
    llm({ 'llm.token_count.prompt': { str: '99999999999999999999' }, 'llm.token_count.completion': { int: '6000000000000000000' } }),
    llm({ 'llm.token_count.completion': { int: '6000000000000000000' } }),
    spanRecord({
      traceId: newTraceId(),
      attributes: {
        metadata: { str: '{"a":"x\\u0000y","b":"\\ud800"}' },
        'tool.parameters': { str: `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}` },
        ['k\u0000'.repeat(5000)]: { str: 'v\u0000' },
        deep: nested(1500),
      },
      events: [{ name: 'e\u0000'.repeat(5000), timeUnixNano: '1', attributes: { x: { str: '\u0000' } } }],
    }),
    // crafted shapes today's code never wrote
    {
      ...spanRecord({ traceId: newTraceId() }),
      startTimeUnixNano: '999999999999999999999999',
      endTimeUnixNano: 'soon',
      attributes: { odd: 'plain' },
    },
  ]);
  await ingestedRaw(h, longProject, 'p'.repeat(8200), [spanRecord({ traceId: newTraceId() })]);
  await ingestedRaw(h, 'not-a-uuid', 'x', [spanRecord({ traceId: newTraceId() })]);
  await appendRaw(h, `spans-x-${randomUUID()}`, 'SpansIngested', { projectId: nulProject, spans: 'not a list' });
  // deletions that name no stored row: they delete nothing (and stop nothing)
  await appendRaw(h, `spans-x-${randomUUID()}`, 'SpanDeleted', { projectId: 'not-a-uuid', spanId: newSpanId() });
  await appendRaw(h, `spans-x-${randomUUID()}`, 'SpanDeleted', { projectId: nulProject, spanId: 'a\u0000' });
  await appendRaw(h, `spans-x-${randomUUID()}`, 'TraceDeleted', null);
  await appendRaw(h, `spans-x-${randomUUID()}`, 'SessionDeleted', { projectId: nulProject, sessionId: 42 });
  await appendRaw(h, `spans-x-${randomUUID()}`, 'TracesExpired', null);
  await appendRaw(h, `spans-x-${randomUUID()}`, 'TracesExpired', { projectId: 'not-a-uuid', policyId: 7, traceIds: [trace] });
  await appendRaw(h, `spans-x-${randomUUID()}`, 'TracesExpired', { projectId: nulProject, traceIds: 'every one' });
  await appendRaw(h, `spans-x-${randomUUID()}`, 'TracesExpired', {
    projectId: nulProject,
    traceIds: [7, null, {}, ['x'], 'a\u0000', '\ud800', 'x'.repeat(5000)],
  });
};

const normalSpanIsVisible = async (h: Harness) => {
  const traceId = newTraceId();
  const spanId = newSpanId();
  await ingestSpans(h.store, [batch('after', [spanRecord({ traceId, spanId, name: 'normal' })])], context);
  await h.project();
  const found = await rows(
    h.db.pool,
    sql.unsafe`SELECT s.name, p.name AS project FROM spans s JOIN projects p ON p.id = s.project_id WHERE s.span_id = ${spanId}`,
  );
  assert.equal(found, [{ name: 'normal', project: 'after' }]);
};

test('poison events are applied with storable rows, and a normal span after them is visible', async ({ h }) => {
  await writePoison(h);
  await h.project();
  const projects = await rows(h.db.pool, sql.unsafe`SELECT name, description FROM projects ORDER BY id`);
  assert.ok(
    projects.some((p) => p.name === 'evil\ufffdproject' && p.description === 'd\ufffd'),
    JSON.stringify(projects).slice(0, 300),
  );
  assert.ok(projects.some((p) => typeof p.name === 'string' && p.name.startsWith('ppp') && Buffer.byteLength(p.name) <= 1024));
  const spans = await rows(
    h.db.pool,
    sql.unsafe`SELECT name, status_message, attributes::text AS attributes, events::text AS events FROM spans ORDER BY id`,
  );
  assert.is(spans.length, 8, 'every crafted span of the two real projects has a row');
  assert.ok(spans.some((s) => s.name === 'a\ufffdb' && s.status_message === 'm\ufffd'));
  assert.ok(spans.every((s) => !String(s.attributes).includes('\\u0000') && !String(s.events).includes('\\u0000')));
  const traces = await rows(
    h.db.pool,
    sql.unsafe`SELECT token_count_prompt::text AS p, token_count_completion::text AS c FROM traces ORDER BY token_count_prompt DESC LIMIT 1`,
  );
  // Each span's count is clamped to 2^53 - 1 (int64 max, 1e30, "99999999999999999999", 6e18 alike).
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  assert.equal(traces, [{ p: String(2n * max), c: String(3n * max) }]);
  const sessions = await rows(h.db.pool, sql.unsafe`SELECT session_id FROM sessions ORDER BY id`);
  assert.ok(sessions.every((s) => Buffer.byteLength(String(s.session_id)) <= 1024));
  assert.ok(sessions.some((s) => s.session_id === 'sess\ufffd'));
  await normalSpanIsVisible(h);
});

test('a rebuild over the same poison gives the same rows, ids included', async ({ h }) => {
  await writePoison(h);
  await normalSpanIsVisible(h);
  const live = await dumpTracing(h.db.pool);
  await rebuildProjection(h.db.pool, h.store, tracingProjection, {
    batchSize: 3,
    storeInTransaction: h.storeInTransaction,
  });
  assert.equal(await dumpTracing(h.db.pool), live);
});

test('a TracesExpired listing junk among real trace ids expires those traces and nothing else, and stops nothing', async ({ h }) => {
  const projectId = await createdRaw(h, 'expiring');
  const [gone, kept] = [newTraceId(), newTraceId()];
  await ingestedRaw(h, projectId, 'expiring', [spanRecord({ traceId: gone }), spanRecord({ traceId: kept })]);
  await appendRaw(h, `tracing-${projectId}`, 'TracesExpired', {
    projectId,
    policyId: '1',
    startedBefore: 'whenever',
    maxTraces: 'many',
    traceIds: [42, 'n\u0000ul', '\udc00', null, gone, { traceId: kept }],
  });
  await h.project();
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT trace_id FROM traces`), [{ trace_id: kept }]);
  await normalSpanIsVisible(h);
});

test('token sums that overflow bigint are clamped, not an error', async ({ h }) => {
  const projectId = await createdRaw(h, 'tokens');
  const trace = newTraceId();
  const spans = Array.from({ length: 1100 }, () =>
    spanRecord({ traceId: trace, spanKind: 'LLM', attributes: { 'llm.token_count.prompt': { int: '9223372036854775807' } } }),
  );
  await ingestedRaw(h, projectId, 'tokens', spans);
  await h.project();
  const [t] = await rows(h.db.pool, sql.unsafe`SELECT token_count_prompt::text AS p FROM traces`);
  assert.is(t!.p, '9223372036854775807');
  await normalSpanIsVisible(h);
});

test('a price dated year 0 or 99999 already in the log prices nothing and stops nothing, live and in a rebuild', async ({ h }) => {
  // Written before domain/base/storableTime.ts refused such dates; timestamptz refuses year 0 (22008).
  const price = (effectiveFrom: string) => ({
    model: 'ancient',
    namePattern: 'ancient-.*',
    provider: null,
    effectiveFrom,
    prices: [{ tokenType: 'input', usdPerToken: 1e-6, threshold: null }],
  });
  await appendRaw(h, PRICE_STREAM, 'ModelPriceSet', price('0000-01-01T00:00:00Z'));
  await appendRaw(h, PRICE_STREAM, 'ModelPriceSet', price('+099999-01-01T00:00:00.000Z'));
  await appendRaw(h, PRICE_STREAM, 'ModelPriceDeleted', { model: 'ancient', effectiveFrom: '0000-01-01T00:00:00Z' });
  await appendRaw(h, PRICE_STREAM, 'ModelPriceSet', price('2024-01-01T00:00:00Z'));
  await h.project();
  assert.equal(await rows(h.db.pool, sql.unsafe`SELECT to_json(effective_from)#>>'{}' AS at FROM model_prices`), [
    { at: '2024-01-01T00:00:00+00:00' },
  ]);
  await normalSpanIsVisible(h);
  const live = await dumpTracing(h.db.pool);
  await rebuildProjection(h.db.pool, h.store, tracingProjection, { batchSize: 2, storeInTransaction: h.storeInTransaction });
  assert.equal(await dumpTracing(h.db.pool), live);
});

test.run();
