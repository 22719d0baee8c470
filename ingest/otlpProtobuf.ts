import { fileURLToPath } from 'node:url';
import path from 'node:path';
import protobuf from 'protobufjs';
import { attributesFrom, floatValue, type Attributes, type AttributeValue } from '../domain/tracing/attributes.ts';
import type { SpanInput } from '../domain/tracing/buildSpanRecord.ts';
import { MAX_DEPTH } from '../domain/base/storableText.ts';
import { TOO_DEEP_VALUE } from '../domain/tracing/storable.ts';
import type { ExportRequestInput, ResourceSpansInput } from './exportRequest.ts';
import { IngestError } from './ingestError.ts';
import type { ExportOutcome } from './exportTraces.ts';

const PROTO_DIR = fileURLToPath(new URL('./proto/', import.meta.url));

type OtlpTypes = { readonly request: protobuf.Type; readonly response: protobuf.Type };
let types: OtlpTypes | undefined;

/** The vendored .proto files, parsed on first use (not at import) and then kept. */
const otlpTypes = (): OtlpTypes => {
  if (types) return types;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(PROTO_DIR, target));
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
  root.resolveAll();
  types = {
    request: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
    response: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse'),
  };
  return types;
};

/**
 * Wire types (protobuf encoding) of the fields read: varint, 64-bit, length-delimited. A field that arrives
 * with another wire type than its declaration is skipped as an unknown field would be.
 */
const VARINT = 0;
const I64 = 1;
const LEN = 2;

type Reader = protobuf.Reader;

/** Reads the fields of the message that ends at `end`, calling `field` for each (it must consume it or return false). */
const eachField = (r: Reader, end: number, field: (n: number, wire: number) => boolean): void => {
  while (r.pos < end) {
    const tag = r.uint32();
    const wire = tag & 7;
    if (!field(tag >>> 3, wire)) r.skipType(wire);
  }
  if (r.pos > end) throw new RangeError('a field runs past the end of its message');
};

/** The end of the length-delimited field starting at the reader's position (its length read). */
const endOf = (r: Reader): number => {
  const length = r.uint32();
  const end = r.pos + length;
  if (end > r.len) throw new RangeError(`index out of range: ${end} > ${r.len}`);
  return end;
};

const fixed64 = (r: Reader): bigint => {
  const low = r.fixed32();
  const high = r.fixed32();
  return (BigInt(high) << 32n) | BigInt(low);
};

/** `int64` as a varint: protobufjs reads it as a Long (two's complement in two 32-bit halves). */
const int64Text = (r: Reader): string => {
  const v = r.int64() as unknown as number | { readonly low: number; readonly high: number };
  const bits = typeof v === 'number' ? BigInt(v) : (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
  return BigInt.asIntN(64, bits).toString();
};

const hex = (b: Uint8Array): string =>
  b.length === 0 ? '' : (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)).toString('hex');

/**
 * An AnyValue ending at `end`, `depth` levels down (1 = an attribute's value; as in storable.ts).
 * The last of its oneof fields on the wire wins; none set is null. Past MAX_DEPTH a value is not
 * read (nor kept): its bytes are skipped and it is stored as TOO_DEEP_VALUE, so nesting costs no
 * stack however deep it goes.
 */
const anyValue = (r: Reader, end: number, depth: number): AttributeValue => {
  let value: AttributeValue = null;
  eachField(r, end, (n, wire) => {
    if (n < 1 || n > 7) return false;
    if (depth > MAX_DEPTH) {
      if (wire !== (n === 2 || n === 3 ? VARINT : n === 4 ? I64 : LEN)) return false;
      r.skipType(wire);
      value = TOO_DEEP_VALUE;
      return true;
    }
    switch (n) {
      case 1:
        if (wire !== LEN) return false;
        value = { str: r.string() };
        return true;
      case 2:
        if (wire !== VARINT) return false;
        value = { bool: r.bool() };
        return true;
      case 3:
        if (wire !== VARINT) return false;
        value = { int: int64Text(r) };
        return true;
      case 4:
        if (wire !== I64) return false;
        value = floatValue(r.double());
        return true;
      case 5: {
        if (wire !== LEN) return false;
        const items: AttributeValue[] = [];
        eachField(r, endOf(r), (m, w) => {
          if (m !== 1 || w !== LEN) return false;
          items.push(anyValue(r, endOf(r), depth + 1));
          return true;
        });
        value = { array: items };
        return true;
      }
      case 6:
        if (wire !== LEN) return false;
        value = { kvlist: keyValues(r, endOf(r), depth + 1) };
        return true;
      default:
        if (wire !== LEN) return false;
        value = { bytes: Buffer.from(r.bytes()).toString('base64') };
        return true;
    }
  });
  return value;
};

/** One KeyValue ending at `end`: its key and value (no value set: null). */
const keyValue = (r: Reader, end: number, depth: number): [string, AttributeValue] => {
  let key = '';
  let value: AttributeValue = null;
  eachField(r, end, (n, wire) => {
    if (wire !== LEN || (n !== 1 && n !== 2)) return false;
    if (n === 1) key = r.string();
    else value = anyValue(r, endOf(r), depth);
    return true;
  });
  return [key, value];
};

/** A KeyValueList or Resource ending at `end` (its KeyValues are field 1), as attributes. */
const keyValues = (r: Reader, end: number, depth: number): Attributes => {
  const pairs: [string, AttributeValue][] = [];
  eachField(r, end, (n, wire) => {
    if (n !== 1 || wire !== LEN) return false;
    pairs.push(keyValue(r, endOf(r), depth));
    return true;
  });
  // A repeated key: the last one wins.
  return attributesFrom(pairs);
};

type MutableSpan = { -readonly [K in keyof SpanInput]: SpanInput[K] };
type SpanEventInput = SpanInput['events'][number];

const event = (r: Reader, end: number): SpanEventInput => {
  let name = '';
  let timeUnixNano = 0n;
  const pairs: [string, AttributeValue][] = [];
  eachField(r, end, (n, wire) => {
    if (n === 1 && wire === I64) timeUnixNano = fixed64(r);
    else if (n === 2 && wire === LEN) name = r.string();
    else if (n === 3 && wire === LEN) pairs.push(keyValue(r, endOf(r), 1));
    else return false;
    return true;
  });
  return { name, timeUnixNano, attributes: attributesFrom(pairs) };
};

const status = (r: Reader, end: number): SpanInput['status'] => {
  let code = 0;
  let message = '';
  eachField(r, end, (n, wire) => {
    if (n === 2 && wire === LEN) message = r.string();
    else if (n === 3 && wire === VARINT) code = r.int32();
    else return false;
    return true;
  });
  return { code, message };
};

/** A Span ending at `end`; fields Loupe does not keep (trace_state, flags, links, counts) are skipped. */
const span = (r: Reader, end: number): SpanInput => {
  const s: MutableSpan = {
    traceId: '',
    spanId: '',
    parentSpanId: '',
    name: '',
    kind: 0,
    startTimeUnixNano: 0n,
    endTimeUnixNano: 0n,
    attributes: {},
    events: [],
    status: { code: 0, message: '' },
  };
  const attributes: [string, AttributeValue][] = [];
  const events: SpanEventInput[] = [];
  eachField(r, end, (n, wire) => {
    if (wire === LEN) {
      if (n === 1) s.traceId = hex(r.bytes());
      else if (n === 2) s.spanId = hex(r.bytes());
      else if (n === 4) s.parentSpanId = hex(r.bytes());
      else if (n === 5) s.name = r.string();
      else if (n === 9) attributes.push(keyValue(r, endOf(r), 1));
      else if (n === 11) events.push(event(r, endOf(r)));
      else if (n === 15) s.status = status(r, endOf(r));
      else return false;
    } else if (wire === I64 && (n === 7 || n === 8)) {
      if (n === 7) s.startTimeUnixNano = fixed64(r);
      else s.endTimeUnixNano = fixed64(r);
    } else if (wire === VARINT && n === 6) s.kind = r.int32();
    else return false;
    return true;
  });
  s.attributes = attributesFrom(attributes);
  s.events = events;
  return s;
};

/** A ResourceSpans ending at `end`: its resource's attributes and the spans of all its scopes. */
const resourceSpans = (r: Reader, end: number): ResourceSpansInput => {
  let resourceAttributes: Attributes = {};
  const spans: SpanInput[] = [];
  eachField(r, end, (n, wire) => {
    if (wire !== LEN) return false;
    if (n === 1) resourceAttributes = keyValues(r, endOf(r), 1);
    else if (n === 2) {
      // ScopeSpans: its spans are field 2 (the scope itself is not kept, as in Phoenix).
      eachField(r, endOf(r), (m, w) => {
        if (m !== 2 || w !== LEN) return false;
        spans.push(span(r, endOf(r)));
        return true;
      });
    } else return false;
    return true;
  });
  return { resourceAttributes, spans };
};

/**
 * Decodes an `application/x-protobuf` body (HTTP) or a gRPC message: one decoder for both. It reads
 * the wire format straight into Loupe's shapes with protobufjs' Reader, instead of decoding into
 * protobufjs message objects first and converting those: that detour allocated a third of what
 * ingesting a span did (BENCHMARKS.md §12). Same rules as a protobuf decoder: unknown fields and
 * fields of an unexpected wire type are skipped, the last occurrence of a singular field wins.
 */
export const decodeOtlpProtobuf = (body: Uint8Array): ExportRequestInput => {
  try {
    const r = protobuf.Reader.create(body);
    const request: ResourceSpansInput[] = [];
    eachField(r, r.len, (n, wire) => {
      if (n !== 1 || wire !== LEN) return false;
      request.push(resourceSpans(r, endOf(r)));
      return true;
    });
    return request;
  } catch (e) {
    throw new IngestError('malformed_request', `body is not a valid protobuf ExportTraceServiceRequest: ${(e as Error).message}`);
  }
};

/** An ExportTraceServiceResponse; `partial_success` only when spans were rejected. */
export const encodeOtlpProtobufResponse = (outcome: ExportOutcome): Uint8Array => {
  const { response } = otlpTypes();
  const body =
    outcome.rejectedSpans > 0 ? { partialSuccess: { rejectedSpans: outcome.rejectedSpans, errorMessage: outcome.errorMessage } } : {};
  return response.encode(response.create(body)).finish();
};
