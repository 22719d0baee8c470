import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { erasedSpansOf, withoutSpans } from '../../../domain/tracing/erasedSpans.ts';
import { withOpenInference } from '../../../domain/tracing/openInferenceFromGenAi.ts';
import { attrs, batch, newTraceId, spanRecord } from '../../support/spanFixtures.ts';

test('given a GenAI span whose session is its conversation id, when it is removed from its event, then the record keeps that session (a rebuild links its trace as live did)', () => {
  const span = spanRecord({
    traceId: newTraceId(),
    attributes: attrs({ 'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': 'conv-9' }),
  });
  assert.is(span.sessionId, null, 'ingest records no session: the event keeps what was sent');
  assert.is(withOpenInference(span).sessionId, 'conv-9', 'the projector gives it one');
  const data = { ...batch('shop', [span, spanRecord({ traceId: newTraceId() })]), projectId: '11111111-1111-4111-8111-111111111111' };
  const rewritten = withoutSpans(data, (s) => s.spanId === span.spanId);
  assert.equal(erasedSpansOf(rewritten), [{ at: 0, traceId: span.traceId, sessionId: 'conv-9' }]);
});

test('given a span that sends session.id, when it is removed, then the record keeps session.id, not the conversation id', () => {
  const span = spanRecord({ traceId: newTraceId(), attributes: attrs({ 'session.id': 'mine', 'gen_ai.conversation.id': 'conv-9' }) });
  const rewritten = withoutSpans({ ...batch('shop', [span]), projectId: '11111111-1111-4111-8111-111111111111' }, () => true);
  assert.equal(erasedSpansOf(rewritten), [{ at: 0, traceId: span.traceId, sessionId: 'mine' }]);
});

test.run();
