import { attributesFrom, floatValue, type Attributes, type AttributeValue } from '../domain/tracing/attributes.ts';
import type { SpanInput } from '../domain/tracing/buildSpanRecord.ts';
import { OTEL_SPAN_KINDS } from '../domain/tracing/events.ts';
import { MAX_DEPTH } from '../domain/base/storableText.ts';
import { TOO_DEEP_VALUE } from '../domain/tracing/storable.ts';
import type { ExportRequestInput } from './exportRequest.ts';
import type { ExportOutcome } from './exportTraces.ts';
import { IngestError } from './ingestError.ts';

/**
 * OTLP/JSON is protobuf's JSON mapping with two OTLP rules: trace and span ids are hex (not
 * base64), and enums are numbers. It is read by hand, not with protobufjs `fromObject`, which
 * would take the hex ids for base64. Field names may be lowerCamelCase or the proto's
 * snake_case (both are valid protobuf JSON); int64 may be a string or a number; enums may also
 * be given by name.
 */

type Json = Record<string, unknown>;

const fail = (path: string, problem: string): never => {
  throw new IngestError('malformed_request', `invalid OTLP/JSON at ${path}: ${problem}`);
};

const field = (o: Json, camel: string, snake: string): unknown => (o[camel] !== undefined ? o[camel] : o[snake]);

const object = (v: unknown, path: string): Json | null => {
  if (v === undefined || v === null) return null;
  return typeof v === 'object' && !Array.isArray(v) ? (v as Json) : fail(path, 'expected an object');
};

const array = (v: unknown, path: string): readonly unknown[] => {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : fail(path, 'expected an array');
};

const string = (v: unknown, path: string): string => {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : fail(path, 'expected a string');
};

const INTEGER = /^-?\d+$/;

const int64 = (v: unknown, path: string): bigint => {
  if (v === undefined || v === null) return 0n;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && INTEGER.test(v)) return BigInt(v);
  return fail(path, 'expected an integer (a number or a decimal string)');
};

const uint64 = (v: unknown, path: string): bigint => {
  const n = int64(v, path);
  return n >= 0n && n < 2n ** 64n ? n : fail(path, 'expected an unsigned 64-bit integer');
};

const enumValue = (v: unknown, names: readonly string[], path: string): number => {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && names.includes(v)) return names.indexOf(v);
  return fail(path, `expected an enum number or one of ${names.join(', ')}`);
};

const STATUS_CODE_NAMES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'];

const double = (v: unknown, path: string): AttributeValue => {
  if (typeof v === 'number') return floatValue(v);
  if (typeof v === 'bigint') return floatValue(Number(v));
  // Protobuf JSON also allows a double as a string: "NaN", "Infinity", "-Infinity" or a numeral.
  if (typeof v === 'string' && v.trim() !== '' && (v === 'NaN' || !Number.isNaN(Number(v)))) return floatValue(Number(v));
  return fail(path, 'expected a number');
};

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * `depth` counts arrays and kvlists from the attribute (1); a value deeper than storable nesting
 * is not walked (storable.ts keeps TOO_DEEP_VALUE in its place), so no nesting overflows the stack.
 */
const anyValue = (v: unknown, path: string, depth: number): AttributeValue => {
  const o = object(v, path);
  if (o === null) return null;
  if (depth > MAX_DEPTH) return TOO_DEEP_VALUE;
  const s = field(o, 'stringValue', 'string_value');
  if (s !== undefined) return { str: string(s, `${path}.stringValue`) };
  const b = field(o, 'boolValue', 'bool_value');
  if (b !== undefined) return typeof b === 'boolean' ? { bool: b } : fail(`${path}.boolValue`, 'expected a boolean');
  const i = field(o, 'intValue', 'int_value');
  if (i !== undefined) {
    const n = int64(i, `${path}.intValue`);
    return n === BigInt.asIntN(64, n) ? { int: n.toString() } : fail(`${path}.intValue`, 'out of the int64 range');
  }
  const d = field(o, 'doubleValue', 'double_value');
  if (d !== undefined) return double(d, `${path}.doubleValue`);
  const a = field(o, 'arrayValue', 'array_value');
  if (a !== undefined) {
    const values = array(object(a, `${path}.arrayValue`)?.values, `${path}.arrayValue.values`);
    return { array: values.map((x, k) => anyValue(x, `${path}.arrayValue.values[${k}]`, depth + 1)) };
  }
  const kv = field(o, 'kvlistValue', 'kvlist_value');
  if (kv !== undefined) return { kvlist: attributes(object(kv, `${path}.kvlistValue`)?.values, `${path}.kvlistValue.values`, depth + 1) };
  const by = field(o, 'bytesValue', 'bytes_value');
  if (by !== undefined) {
    const text = string(by, `${path}.bytesValue`);
    return BASE64.test(text) ? { bytes: Buffer.from(text, 'base64').toString('base64') } : fail(`${path}.bytesValue`, 'expected base64');
  }
  return null;
};

const attributes = (v: unknown, path: string, depth = 1): Attributes =>
  attributesFrom(
    array(v, path).map((x, k) => {
      const kv = object(x, `${path}[${k}]`) ?? fail(`${path}[${k}]`, 'expected an object');
      return [string(kv.key, `${path}[${k}].key`), anyValue(kv.value, `${path}[${k}].value`, depth)] as const;
    }),
  );

/** Ids are compared as lowercase hex; a non-hex id is left for span validation to reject. */
const id = (v: unknown, path: string): string => string(v, path).toLowerCase();

const span = (v: unknown, path: string): SpanInput => {
  const s = object(v, path) ?? fail(path, 'expected an object');
  const status = object(s.status, `${path}.status`);
  return {
    traceId: id(field(s, 'traceId', 'trace_id'), `${path}.traceId`),
    spanId: id(field(s, 'spanId', 'span_id'), `${path}.spanId`),
    parentSpanId: id(field(s, 'parentSpanId', 'parent_span_id'), `${path}.parentSpanId`),
    name: string(s.name, `${path}.name`),
    kind: enumValue(s.kind, OTEL_SPAN_KINDS, `${path}.kind`),
    startTimeUnixNano: uint64(field(s, 'startTimeUnixNano', 'start_time_unix_nano'), `${path}.startTimeUnixNano`),
    endTimeUnixNano: uint64(field(s, 'endTimeUnixNano', 'end_time_unix_nano'), `${path}.endTimeUnixNano`),
    attributes: attributes(s.attributes, `${path}.attributes`),
    events: array(s.events, `${path}.events`).map((x, k) => {
      const p = `${path}.events[${k}]`;
      const e = object(x, p) ?? fail(p, 'expected an object');
      return {
        name: string(e.name, `${p}.name`),
        timeUnixNano: uint64(field(e, 'timeUnixNano', 'time_unix_nano'), `${p}.timeUnixNano`),
        attributes: attributes(e.attributes, `${p}.attributes`),
      };
    }),
    status: {
      code: status === null ? 0 : enumValue(status.code, STATUS_CODE_NAMES, `${path}.status.code`),
      message: status === null ? '' : string(status.message, `${path}.status.message`),
    },
  };
};

/**
 * A JSON number with 16 or more digits may not fit a double. Only then is the body parsed again
 * with a reviver that keeps such integers exact (Node 24 gives revivers the source text); the
 * reviver costs several times a plain parse, so the common body never pays for it.
 */
const LONG_NUMBER = /[:[,]\s*-?\d{16,}/;

type ReviverContext = { readonly source?: string };
const exactIntegers = (_key: string, value: unknown, context?: ReviverContext): unknown =>
  typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value) && context?.source && INTEGER.test(context.source)
    ? BigInt(context.source)
    : value;

const parseJson = (text: string): unknown => {
  try {
    if (!LONG_NUMBER.test(text)) return JSON.parse(text);
    return JSON.parse(text, exactIntegers as (this: unknown, key: string, value: unknown) => unknown);
  } catch (e) {
    throw new IngestError('malformed_request', `body is not valid JSON: ${(e as Error).message}`);
  }
};

/** Decodes an `application/json` body (OTLP/JSON ExportTraceServiceRequest). */
export const decodeOtlpJson = (body: Uint8Array): ExportRequestInput => {
  const root = object(parseJson(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')), '$');
  if (root === null) return fail('$', 'expected an object');
  try {
    return array(field(root, 'resourceSpans', 'resource_spans'), '$.resourceSpans').map((x, r) => {
      const p = `$.resourceSpans[${r}]`;
      const rs = object(x, p) ?? fail(p, 'expected an object');
      const resource = object(rs.resource, `${p}.resource`);
      return {
        resourceAttributes: attributes(resource?.attributes, `${p}.resource.attributes`),
        spans: array(field(rs, 'scopeSpans', 'scope_spans'), `${p}.scopeSpans`).flatMap((y, s) => {
          const q = `${p}.scopeSpans[${s}]`;
          const ss = object(y, q) ?? fail(q, 'expected an object');
          return array(ss.spans, `${q}.spans`).map((z, k) => span(z, `${q}.spans[${k}]`));
        }),
      };
    });
  } catch (e) {
    if (e instanceof IngestError) throw e;
    // Only a stack overflow on absurdly nested attribute values can land here.
    throw new IngestError('malformed_request', `ExportTraceServiceRequest could not be read: ${(e as Error).message}`);
  }
};

/** ExportTraceServiceResponse in OTLP/JSON: int64 as a string, as protobuf JSON writes it. */
export const encodeOtlpJsonResponse = (outcome: ExportOutcome): string =>
  JSON.stringify(
    outcome.rejectedSpans > 0
      ? { partialSuccess: { rejectedSpans: String(outcome.rejectedSpans), errorMessage: outcome.errorMessage } }
      : {},
  );
