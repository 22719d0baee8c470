import { fileURLToPath } from 'node:url';
import path from 'node:path';
import protobuf from 'protobufjs';
import { attributesFrom, floatValue, type Attributes, type AttributeValue } from '../domain/tracing/attributes.ts';
import type { SpanInput } from '../domain/tracing/buildSpanRecord.ts';
import { MAX_DEPTH, TOO_DEEP_VALUE } from '../domain/tracing/storable.ts';
import type { ExportRequestInput } from './exportRequest.ts';
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

/** protobufjs represents 64-bit fields as `Long` (or a number when it fits). */
type Long64 = number | { readonly low: number; readonly high: number };
type PbKeyValue = { readonly key: string; readonly value?: PbAnyValue | null };
type PbAnyValue = {
  readonly value?: string;
  readonly stringValue?: string;
  readonly boolValue?: boolean;
  readonly intValue?: Long64;
  readonly doubleValue?: number;
  readonly arrayValue?: { readonly values: readonly PbAnyValue[] } | null;
  readonly kvlistValue?: { readonly values: readonly PbKeyValue[] } | null;
  readonly bytesValue?: Uint8Array;
};
type PbSpan = {
  readonly traceId: Uint8Array;
  readonly spanId: Uint8Array;
  readonly parentSpanId: Uint8Array;
  readonly name: string;
  readonly kind: number;
  readonly startTimeUnixNano: Long64;
  readonly endTimeUnixNano: Long64;
  readonly attributes: readonly PbKeyValue[];
  readonly events: readonly { readonly name: string; readonly timeUnixNano: Long64; readonly attributes: readonly PbKeyValue[] }[];
  readonly status?: { readonly code: number; readonly message: string } | null;
};
type PbRequest = {
  readonly resourceSpans: readonly {
    readonly resource?: { readonly attributes: readonly PbKeyValue[] } | null;
    readonly scopeSpans: readonly { readonly spans: readonly PbSpan[] }[];
  }[];
};

const unsigned64 = (v: Long64): bigint => (typeof v === 'number' ? BigInt(v) : (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0));

/** An absent bytes field decodes to an empty array, not a Buffer. */
const hex = (b: Uint8Array): string =>
  b.length === 0 ? '' : (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)).toString('hex');

/** `depth` as in storable.ts: nesting past MAX_DEPTH is not walked (nor kept). */
const anyValue = (v: PbAnyValue | null | undefined, depth: number): AttributeValue => {
  if (depth > MAX_DEPTH && v?.value !== undefined) return TOO_DEEP_VALUE;
  switch (v?.value) {
    case 'stringValue':
      return { str: v.stringValue! };
    case 'boolValue':
      return { bool: v.boolValue! };
    case 'intValue':
      return { int: BigInt.asIntN(64, unsigned64(v.intValue!)).toString() };
    case 'doubleValue':
      return floatValue(v.doubleValue!);
    case 'arrayValue':
      return { array: (v.arrayValue?.values ?? []).map((x) => anyValue(x, depth + 1)) };
    case 'kvlistValue':
      return { kvlist: attributes(v.kvlistValue?.values ?? [], depth + 1) };
    case 'bytesValue':
      return { bytes: Buffer.from(v.bytesValue!).toString('base64') };
    default:
      return null;
  }
};

const attributes = (kvs: readonly PbKeyValue[], depth = 1): Attributes =>
  attributesFrom(kvs.map((kv) => [kv.key, anyValue(kv.value, depth)]));

const span = (s: PbSpan): SpanInput => ({
  traceId: hex(s.traceId),
  spanId: hex(s.spanId),
  parentSpanId: hex(s.parentSpanId),
  name: s.name,
  kind: s.kind,
  startTimeUnixNano: unsigned64(s.startTimeUnixNano),
  endTimeUnixNano: unsigned64(s.endTimeUnixNano),
  attributes: attributes(s.attributes),
  events: s.events.map((e) => ({ name: e.name, timeUnixNano: unsigned64(e.timeUnixNano), attributes: attributes(e.attributes) })),
  status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
});

/** Decodes an `application/x-protobuf` body (HTTP) or a gRPC message: one decoder for both. */
export const decodeOtlpProtobuf = (body: Uint8Array): ExportRequestInput => {
  let message: PbRequest;
  try {
    message = otlpTypes().request.decode(body) as unknown as PbRequest;
  } catch (e) {
    throw new IngestError('malformed_request', `body is not a valid protobuf ExportTraceServiceRequest: ${(e as Error).message}`);
  }
  try {
    return message.resourceSpans.map((rs) => ({
      resourceAttributes: attributes(rs.resource?.attributes ?? []),
      spans: rs.scopeSpans.flatMap((ss) => ss.spans.map(span)),
    }));
  } catch (e) {
    // Only a stack overflow on absurdly nested attribute values can land here.
    throw new IngestError('malformed_request', `ExportTraceServiceRequest could not be read: ${(e as Error).message}`);
  }
};

/** An ExportTraceServiceResponse; `partial_success` only when spans were rejected. */
export const encodeOtlpProtobufResponse = (outcome: ExportOutcome): Uint8Array => {
  const { response } = otlpTypes();
  const body =
    outcome.rejectedSpans > 0 ? { partialSuccess: { rejectedSpans: outcome.rejectedSpans, errorMessage: outcome.errorMessage } } : {};
  return response.encode(response.create(body)).finish();
};
