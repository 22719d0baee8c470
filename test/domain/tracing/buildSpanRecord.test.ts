import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { attributesFrom } from '../../../domain/tracing/attributes.ts';
import { buildSpanRecord, type SpanInput } from '../../../domain/tracing/buildSpanRecord.ts';

const input = (over: Partial<SpanInput> = {}): SpanInput => ({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  parentSpanId: '',
  name: 'chat',
  kind: 3,
  startTimeUnixNano: 1700000000000000000n,
  endTimeUnixNano: 1700000000250000000n,
  attributes: { 'openinference.span.kind': { str: 'llm' }, 'session.id': { str: 's1' } },
  events: [{ name: 'exception', timeUnixNano: 1700000000100000000n, attributes: { 'exception.message': { str: 'boom' } } }],
  status: { code: 2, message: 'boom' },
  ...over,
});

const test = suite('buildSpanRecord');

test('given a valid span, then the normalised record', () => {
  assert.equal(buildSpanRecord(input(), 3), {
    ok: true,
    span: {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      parentId: null,
      name: 'chat',
      kind: 'SPAN_KIND_CLIENT',
      spanKind: 'LLM',
      status: { code: 'ERROR', message: 'boom' },
      startTimeUnixNano: '1700000000000000000',
      endTimeUnixNano: '1700000000250000000',
      attributes: { 'openinference.span.kind': { str: 'llm' }, 'session.id': { str: 's1' } },
      events: [{ name: 'exception', timeUnixNano: '1700000000100000000', attributes: { 'exception.message': { str: 'boom' } } }],
      resource: 3,
      sessionId: 's1',
    },
  });
});

test('given bad ids or missing times, then a rejection that says why', () => {
  const reason = (over: Partial<SpanInput>) => {
    const r = buildSpanRecord(input(over), 0);
    return r.ok ? 'accepted' : r.reason;
  };
  assert.is(reason({ traceId: '' }), 'trace_id must be 16 bytes, got 0');
  assert.is(reason({ traceId: '00'.repeat(16) }), 'trace_id is all zero');
  assert.is(reason({ traceId: 'zz'.repeat(16) }), 'trace_id is not hex');
  assert.is(reason({ spanId: 'ab'.repeat(9) }), 'span_id must be 8 bytes, got 9');
  assert.is(reason({ spanId: '0'.repeat(16) }), 'span_id is all zero');
  assert.is(reason({ parentSpanId: 'abc' }), 'parent_span_id has an odd number of hex digits');
  assert.is(reason({ startTimeUnixNano: 0n }), 'start_time_unix_nano is missing');
  assert.is(reason({ endTimeUnixNano: 0n }), 'end_time_unix_nano is missing');
  assert.is(reason({ name: '', endTimeUnixNano: 1n }), 'accepted');
});

test('an all-zero parent id means a root span; a real one is kept', () => {
  const parentOf = (parentSpanId: string) => {
    const r = buildSpanRecord(input({ parentSpanId }), 0);
    return r.ok ? r.span.parentId : r.reason;
  };
  assert.is(parentOf('0000000000000000'), null);
  assert.is(parentOf('00f067aa0ba902b7'), '00f067aa0ba902b7');
});

test('unknown enum numbers fall back to UNSPECIFIED / UNSET; span kind defaults to UNKNOWN', () => {
  const r = buildSpanRecord(input({ kind: 9, status: { code: 7, message: '' }, attributes: {} }), 0);
  assert.ok(r.ok);
  if (!r.ok) return;
  assert.is(r.span.kind, 'SPAN_KIND_UNSPECIFIED');
  assert.equal(r.span.status, { code: 'UNSET', message: '' });
  assert.is(r.span.spanKind, 'UNKNOWN');
  assert.is(r.span.sessionId, null);
  const odd = buildSpanRecord(input({ attributes: { 'openinference.span.kind': { str: 'planner' } } }), 0);
  assert.is(odd.ok && odd.span.spanKind, 'UNKNOWN');
  const notString = buildSpanRecord(input({ attributes: { 'openinference.span.kind': { int: '1' } } }), 0);
  assert.is(notString.ok && notString.span.spanKind, 'UNKNOWN');
});

test('the record is plain JSON: a JSON round trip changes nothing', () => {
  const r = buildSpanRecord(
    input({
      attributes: attributesFrom([
        ['__proto__', { float: 'NaN' }],
        ['n', { array: [{ int: '1' }, null] }],
      ]),
    }),
    0,
  );
  assert.ok(r.ok);
  if (r.ok) assert.equal(JSON.parse(JSON.stringify(r.span)), r.span);
});

test.run();
