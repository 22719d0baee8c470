import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isEventOf } from '../../../domain/loupeEvent.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { rebuildProjection } from '../../../projections/rebuildProjection.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { attrs, batch, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { context, dumpTracing, rows, tracingHarness, type Harness } from './tracingHarness.ts';

const test = suite<{ h: Harness }>('tracing projection: spans in the GenAI conventions', {} as { h: Harness });
test.before.each(async (ctx) => {
  ctx.h = await tracingHarness();
});
test.after.each(async (ctx) => {
  await ctx.h.db.close();
});

const near = (actual: unknown, expected: number, what: string) =>
  assert.ok(typeof actual === 'number' && Math.abs(actual - expected) < 1e-12, `${what}: ${actual} ≠ ${expected}`);

/** A chat span as an OpenTelemetry GenAI instrumentation sends it: no OpenInference attribute, so ingest records kind UNKNOWN. */
const chat = (traceId: string, extra: Record<string, string | number> = {}) =>
  spanRecord({
    traceId,
    name: 'chat gpt-4o-mini',
    startTimeUnixNano: nanos('2026-11-01T00:00:00Z'),
    endTimeUnixNano: nanos('2026-11-01T00:00:01Z'),
    attributes: attrs({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.input.messages': '[{"role":"user","parts":[{"type":"text","content":"Capital of France?"}]}]',
      'gen_ai.usage.input_tokens': 1000,
      'gen_ai.usage.output_tokens': 500,
      'gen_ai.conversation.id': 'conv-1',
      ...extra,
    }),
  });

const spanRows = (h: Harness) =>
  rows(
    h.db.pool,
    sql.unsafe`SELECT name, span_kind, llm_model_name, llm_provider, llm_token_count_prompt::int AS prompt,
      llm_token_count_completion::int AS completion, cost_prompt, cost_total, attributes FROM spans ORDER BY id`,
  );

test('given a GenAI chat span in the log, when projected, then its row is an LLM span with model, tokens, messages, cost and session, and the event keeps what was sent', async ({
  h,
}) => {
  const t = newTraceId();
  await ingestSpans(h.store, [batch('shop', [chat(t)])], context);
  await h.project();
  const [span] = await spanRows(h);
  assert.is(span!.span_kind, 'LLM');
  assert.is(span!.llm_model_name, 'gpt-4o-mini');
  assert.is(span!.llm_provider, 'openai');
  assert.equal([span!.prompt, span!.completion], [1000, 500]);
  near(span!.cost_prompt, 1000 * 1.5e-7, 'prompt cost at the built-in gpt-4o-mini price');
  near(span!.cost_total, 1000 * 1.5e-7 + 500 * 6e-7, 'total cost');
  const attributes = span!.attributes as Record<string, unknown>;
  assert.is(attributes['llm.input_messages.0.message.contents.0.message_content.text'], 'Capital of France?');
  assert.is(attributes['gen_ai.request.model'], 'gpt-4o-mini', 'the gen_ai.* attributes stay on the span');
  const [trace] = await rows(
    h.db.pool,
    sql.unsafe`SELECT t.token_count_prompt::int AS prompt, s.session_id FROM traces t JOIN sessions s ON s.id = t.session_id`,
  );
  assert.equal(trace, { prompt: 1000, session_id: 'conv-1' });

  const event = (await h.readEverything()).find((e) => isEventOf(e, ['SpansIngested']));
  if (!event || !isEventOf(event, ['SpansIngested'])) throw new Error('no SpansIngested in the log');
  const logged = event.data.spans[0]!;
  assert.is(logged.spanKind, 'UNKNOWN', 'the log keeps the span as sent');
  assert.equal(
    Object.keys(logged.attributes).filter((k) => !k.startsWith('gen_ai.')),
    [],
  );
});

test('given GenAI spans projected live, when the projection is rebuilt from the log, then the rows are the same', async ({ h }) => {
  const t = newTraceId();
  await ingestSpans(
    h.store,
    [batch('shop', [chat(t), chat(t, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' })])],
    context,
  );
  await ingestSpans(h.store, [batch('shop', [chat(newTraceId(), { 'openinference.span.kind': 'CHAIN' })])], context);
  await h.project();
  const live = await dumpTracing(h.db.pool);
  assert.equal(
    (live.spans as { span_kind: string }[]).map((s) => s.span_kind),
    ['LLM', 'TOOL', 'CHAIN'],
    'a span that sends openinference.span.kind keeps it',
  );
  await rebuildProjection(h.db.pool, h.store, tracingProjection, { batchSize: 1, storeInTransaction: h.storeInTransaction });
  assert.equal(await dumpTracing(h.db.pool), live);
});

test('given a malformed gen_ai.input.messages (not JSON, wrong shape, 5 MB) beside a good span, when projected, then all are stored as sent and the projection goes on', async ({
  h,
}) => {
  const huge = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'x'.repeat(5 * 1024 * 1024) }] }]);
  const bad = [
    'not json [',
    '{"role":"user"}',
    '[{"role":1,"parts":"no"}]',
    huge,
    '[{"role":"user","parts":[{"type":"text","content":"\\u0000"}]}]',
  ];
  const t = newTraceId();
  await ingestSpans(
    h.store,
    [
      batch(
        'shop',
        bad.map((m) => chat(t, { 'gen_ai.input.messages': m })),
      ),
    ],
    context,
  );
  await ingestSpans(h.store, [batch('shop', [chat(newTraceId())])], context);
  await h.project();
  const spans = await spanRows(h);
  assert.is(spans.length, bad.length + 1);
  spans.slice(0, 4).forEach((s, i) => {
    const attributes = s.attributes as Record<string, unknown>;
    assert.is(attributes['gen_ai.input.messages'], bad[i]);
    assert.equal(
      Object.keys(attributes).filter((k) => k.startsWith('llm.input_messages')),
      [],
    );
    assert.is(s.span_kind, 'LLM');
  });
  assert.is((spans[4]!.attributes as Record<string, unknown>)['llm.input_messages.0.message.contents.0.message_content.text'], '\ufffd');
});

test.run();
