import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_DEPTH } from '../../domain/base/storableText.ts';
import { TOO_DEEP_VALUE } from '../../domain/tracing/storable.ts';
import { decodeOtlpProtobuf } from '../../ingest/otlpProtobuf.ts';
import { otlpTypesForTests as otlp } from './sampleSpans.ts';

/**
 * The protobuf decoder reads the wire format itself (protobufjs' Reader, no message objects):
 * what protobufjs encodes from the vendored .proto files must come out field for field, and the
 * rules of protobuf decoding must hold (unknown fields and unexpected wire types skipped, the last
 * singular field wins), whatever order or repetition the bytes use.
 */

const TRACE = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
const SPAN = Buffer.from('0123456789abcdef', 'hex');
const PARENT = Buffer.from('fedcba9876543210', 'hex');

const encode = (message: object): Buffer => Buffer.from(otlp.request.encode(otlp.request.fromObject(message)).finish());

const varint = (n: number): Buffer => {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 127) | 128);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
};
const tag = (field: number, wire: number) => varint((field << 3) | wire);
const len = (field: number, payload: Buffer) => Buffer.concat([tag(field, 2), varint(payload.length), payload]);
/** A request holding one span whose own bytes are `spanBytes`. */
const wrapSpan = (spanBytes: Buffer) => len(1, len(2, len(2, spanBytes)));

test('every field Loupe keeps comes out as protobufjs encoded it', () => {
  const body = encode({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] },
        scopeSpans: [
          { scope: { name: 'ignored' }, spans: [] },
          {
            spans: [
              {
                traceId: TRACE,
                spanId: SPAN,
                parentSpanId: PARENT,
                traceState: 'x=1',
                flags: 257,
                name: 'llm call',
                kind: 3,
                startTimeUnixNano: '18446744073709551615',
                endTimeUnixNano: '1700000000123456789',
                attributes: [
                  { key: 's', value: { stringValue: 'héllo 😀' } },
                  { key: 'empty', value: { stringValue: '' } },
                  { key: 'b', value: { boolValue: false } },
                  { key: 'neg', value: { intValue: '-9223372036854775808' } },
                  { key: 'big', value: { intValue: '9223372036854775807' } },
                  { key: 'f', value: { doubleValue: 1.5 } },
                  { key: 'bytes', value: { bytesValue: Buffer.from([0, 255, 1]) } },
                  { key: 'arr', value: { arrayValue: { values: [{ intValue: '1' }, {}, { arrayValue: { values: [] } }] } } },
                  { key: 'kv', value: { kvlistValue: { values: [{ key: 'inner', value: { doubleValue: -0.25 } }] } } },
                  { key: 'unset' },
                  { key: 's', value: { stringValue: 'last wins' } },
                ],
                droppedAttributesCount: 4,
                events: [
                  { timeUnixNano: '5', name: 'exception', attributes: [{ key: 'exception.message', value: { stringValue: 'boom' } }] },
                ],
                links: [{ traceId: TRACE, spanId: PARENT }],
                status: { code: 2, message: 'failed' },
              },
            ],
          },
        ],
      },
      { scopeSpans: [{ spans: [{ name: 'bare' }] }] },
    ],
  });
  const decoded = decodeOtlpProtobuf(body);
  assert.equal(decoded, [
    {
      resourceAttributes: { 'service.name': { str: 'shop' } },
      spans: [
        {
          traceId: TRACE.toString('hex'),
          spanId: SPAN.toString('hex'),
          parentSpanId: PARENT.toString('hex'),
          name: 'llm call',
          kind: 3,
          startTimeUnixNano: 18446744073709551615n,
          endTimeUnixNano: 1700000000123456789n,
          attributes: {
            s: { str: 'last wins' },
            empty: { str: '' },
            b: { bool: false },
            neg: { int: '-9223372036854775808' },
            big: { int: '9223372036854775807' },
            f: { float: 1.5 },
            bytes: { bytes: Buffer.from([0, 255, 1]).toString('base64') },
            arr: { array: [{ int: '1' }, null, { array: [] }] },
            kv: { kvlist: { inner: { float: -0.25 } } },
            unset: null,
          },
          events: [{ name: 'exception', timeUnixNano: 5n, attributes: { 'exception.message': { str: 'boom' } } }],
          status: { code: 2, message: 'failed' },
        },
      ],
    },
    {
      resourceAttributes: {},
      spans: [
        {
          traceId: '',
          spanId: '',
          parentSpanId: '',
          name: 'bare',
          kind: 0,
          startTimeUnixNano: 0n,
          endTimeUnixNano: 0n,
          attributes: {},
          events: [],
          status: { code: 0, message: '' },
        },
      ],
    },
  ]);
});

test('unknown fields and fields of an unexpected wire type are skipped; a repeated singular field: the last wins', () => {
  const span = Buffer.concat([
    len(5, Buffer.from('first')),
    len(99, Buffer.from('unknown field')),
    tag(98, 0),
    varint(300),
    // name (5) sent as a varint: not a string, skipped
    tag(5, 0),
    varint(7),
    // kind (6) sent length-delimited: skipped
    len(6, Buffer.from([1])),
    len(5, Buffer.from('second')),
    tag(6, 0),
    varint(2),
  ]);
  const [resource] = decodeOtlpProtobuf(wrapSpan(span));
  assert.is(resource!.spans[0]!.name, 'second');
  assert.is(resource!.spans[0]!.kind, 2);
});

test('values nested past MAX_DEPTH are kept as the too-deep marker, without walking them', () => {
  // 10,000 levels of kvlist: more than any stack would take recursively.
  let any = len(1, Buffer.from('bottom'));
  for (let i = 0; i < 10_000; i++) any = len(6, len(1, Buffer.concat([len(1, Buffer.from('k')), len(2, any)])));
  const span = Buffer.concat([len(5, Buffer.from('deep')), len(9, Buffer.concat([len(1, Buffer.from('deep')), len(2, any)]))]);
  const [resource] = decodeOtlpProtobuf(wrapSpan(span));
  let value = resource!.spans[0]!.attributes.deep!;
  let depth = 1;
  while (value !== null && 'kvlist' in value) {
    value = value.kvlist.k!;
    depth++;
  }
  assert.is(depth, MAX_DEPTH + 1);
  assert.equal(value, TOO_DEEP_VALUE);
});

test('a truncated or garbled body is refused as malformed, never thrown raw', () => {
  const whole = encode({ resourceSpans: [{ scopeSpans: [{ spans: [{ name: 'x', traceId: TRACE, spanId: SPAN }] }] }] });
  for (const body of [whole.subarray(0, whole.length - 3), Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]), Buffer.from([0x0f])]) {
    try {
      decodeOtlpProtobuf(body);
      assert.unreachable(`decoded ${body.toString('hex')}`);
    } catch (e) {
      assert.is((e as { code?: string }).code, 'malformed_request', String(e));
    }
  }
});

test.run();
