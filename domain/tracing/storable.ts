import { attributesFrom, floatValue, type Attributes, type AttributeValue } from './attributes.ts';
import { OPENINFERENCE_SPAN_KINDS } from './openInferenceSpanKind.ts';
import {
  OTEL_SPAN_KINDS,
  SPAN_STATUS_CODES,
  type OtelSpanKind,
  type SpanBatch,
  type SpanEventRecord,
  type SpanRecord,
  type SpanStatusCode,
} from './events.ts';
import {
  clampBig,
  clippedText,
  MAX_DEPTH,
  MESSAGE_MAX_BYTES,
  storableName,
  storableNanos,
  storableText,
  TOO_DEEP,
} from '../base/storableText.ts';

/**
 * What a stored span may hold: the one place that decides it. Ingest (OTLP protobuf, JSON, gRPC
 * and REST) passes every batch through `storableBatch` before appending, and the tracing
 * projector passes every stored `SpansIngested` through it again before building rows, so an
 * event written before these rules existed (or crafted straight into the log) still yields rows
 * Postgres accepts, and the same rows live and in a rebuild. The rules are deterministic and
 * idempotent (normalising twice changes nothing), which is what makes that replay safe.
 *
 * - U+0000 and unpaired UTF-16 surrogates become U+FFFD, as an invalid UTF-8 byte already does in
 *   protobuf: Postgres `text` cannot hold U+0000, and `jsonb` refuses the `\u0000` escape and
 *   unpaired surrogate escapes (the events table's `json` keeps them, so it is the span columns
 *   that would fail).
 * - Names that end up in a btree index (project and span names, session ids, trace and span ids)
 *   and the other short fields (event names, attribute keys) are cut to `NAME_MAX_BYTES` of UTF-8,
 *   ending in "…": a btree row holds at most ~2.7 KB, and an 8 KB name fails the insert. Status
 *   messages are cut to `MESSAGE_MAX_BYTES`. Attribute values are kept whole, however large.
 * - Attribute values nested deeper than `MAX_DEPTH` arrays/kvlists are replaced by the string
 *   `TOO_DEEP`: rendering, session-id derivation and JSON encoding all walk values recursively.
 * - `int` is a decimal int64 string (clamped into range), times are uint64 decimal strings.
 * - Anything not of the recorded shape (only possible in a crafted event) is coerced to it.
 * Project names are cut the same way here; ingest refuses an over-long one instead (see
 * `domain/projects/projectName.ts`), so the cut only ever applies to events already in the log.
 */
export const TOO_DEEP_VALUE: AttributeValue = { str: TOO_DEEP };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const DIGITS = /^-?\d+$/;

/** An int64 as its decimal string; numbers out of range are clamped to it. */
const int64Text = (v: unknown): string | null => {
  if (typeof v === 'bigint') return clampBig(v, INT64_MIN, INT64_MAX).toString();
  if (typeof v === 'number' && Number.isFinite(v)) return clampBig(BigInt(Math.trunc(v)), INT64_MIN, INT64_MAX).toString();
  if (typeof v === 'string' && DIGITS.test(v)) {
    const n = BigInt(v);
    const text = clampBig(n, INT64_MIN, INT64_MAX).toString();
    return text === v ? v : text;
  }
  return null;
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const FLOAT_WORDS = new Set(['NaN', 'Infinity', '-Infinity']);

/** One attribute value, `depth` levels down (1 = the attribute itself). */
const storableValue = (v: unknown, depth: number): AttributeValue => {
  if (v === null || v === undefined) return null;
  if (depth > MAX_DEPTH) return isRecord(v) && v.str === TOO_DEEP ? (v as AttributeValue) : TOO_DEEP_VALUE;
  if (!isRecord(v)) {
    // Not a typed value (only in a crafted event): read as plain JSON, the way REST types it.
    if (typeof v === 'string') return { str: storableText(v) };
    if (typeof v === 'boolean') return { bool: v };
    if (typeof v === 'number') return Number.isSafeInteger(v) ? { int: String(v) } : floatValue(v);
    if (Array.isArray(v)) return { array: storableArray(v, depth) };
    return { str: storableText(String(v)) };
  }
  if ('str' in v) {
    if (typeof v.str !== 'string') return { str: storableText(String(v.str)) };
    const s = storableText(v.str);
    return s === v.str ? (v as AttributeValue) : { str: s };
  }
  if ('int' in v) {
    const text = int64Text(v.int);
    if (text === null) return typeof v.int === 'string' ? { str: storableText(v.int) } : null;
    return text === v.int ? (v as AttributeValue) : { int: text };
  }
  if ('float' in v) {
    if (typeof v.float === 'number') return Number.isFinite(v.float) ? (v as AttributeValue) : floatValue(v.float);
    return typeof v.float === 'string' && FLOAT_WORDS.has(v.float) ? (v as AttributeValue) : floatValue(Number(v.float));
  }
  if ('bool' in v) return typeof v.bool === 'boolean' ? (v as AttributeValue) : { bool: Boolean(v.bool) };
  if ('bytes' in v) {
    if (typeof v.bytes === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(v.bytes)) return v as AttributeValue;
    return { bytes: Buffer.from(typeof v.bytes === 'string' ? v.bytes : '', 'base64').toString('base64') };
  }
  if ('array' in v) {
    const source = Array.isArray(v.array) ? v.array : [];
    const items = storableArray(source, depth);
    return source === v.array && items.every((x, i) => x === source[i]) ? (v as AttributeValue) : { array: items };
  }
  if ('kvlist' in v) {
    const kv = storableAttributesAt(v.kvlist, depth + 1);
    return kv === v.kvlist ? (v as AttributeValue) : { kvlist: kv };
  }
  return null;
};

const storableArray = (items: readonly unknown[], depth: number): AttributeValue[] => items.map((x) => storableValue(x, depth + 1));

const storableAttributesAt = (a: unknown, depth: number): Attributes => {
  if (!isRecord(a)) return {};
  // Every span's attributes pass here twice (ingest, projection) and almost never change: no
  // pair arrays for the usual case (Object.entries allocated a quarter of what projecting a span
  // did, BENCHMARKS.md §12); the copy starts at the first key or value that needs fixing.
  const keys = Object.keys(a);
  let entries: (readonly [string, AttributeValue])[] | null = null;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = a[k];
    const kk = storableName(k);
    const vv = storableValue(v, depth);
    if (entries === null && (kk !== k || vv !== v)) {
      entries = [];
      for (let j = 0; j < i; j++) entries.push([keys[j]!, a[keys[j]!] as AttributeValue]);
    }
    entries?.push([kk, vv]);
  }
  // Two keys cut to the same text: the later one wins, as for a key sent twice.
  return entries === null ? (a as Attributes) : attributesFrom(entries);
};

/** An attribute map as it may be stored; the same object when nothing needed fixing. */
export const storableAttributes = (a: Attributes): Attributes => storableAttributesAt(a, 1);

const stringOr = (v: unknown, fallback: string): string => (typeof v === 'string' ? v : fallback);

const storableEvent = (e: unknown): SpanEventRecord => {
  const r = isRecord(e) ? e : {};
  const name = storableName(stringOr(r.name, ''));
  const timeUnixNano = storableNanos(r.timeUnixNano);
  const attributes = storableAttributesAt(r.attributes, 1);
  return name === r.name && timeUnixNano === r.timeUnixNano && attributes === r.attributes
    ? (e as SpanEventRecord)
    : { name, timeUnixNano, attributes };
};

const OTEL_KINDS = new Set<string>(OTEL_SPAN_KINDS);
const OI_KINDS = new Set<string>(OPENINFERENCE_SPAN_KINDS);
const STATUS_CODES = new Set<string>(SPAN_STATUS_CODES);

/** One span as it may be stored; the same object when nothing needed fixing. */
export const storableSpan = (s: unknown): SpanRecord => {
  const r = isRecord(s) ? s : {};
  const status = isRecord(r.status) ? r.status : {};
  const events = Array.isArray(r.events) ? r.events : [];
  const span: SpanRecord = {
    traceId: storableName(stringOr(r.traceId, '')),
    spanId: storableName(stringOr(r.spanId, '')),
    parentId: typeof r.parentId === 'string' && r.parentId !== '' ? storableName(r.parentId) : null,
    name: storableName(stringOr(r.name, '')),
    kind: typeof r.kind === 'string' && OTEL_KINDS.has(r.kind) ? (r.kind as OtelSpanKind) : 'SPAN_KIND_UNSPECIFIED',
    spanKind: typeof r.spanKind === 'string' && OI_KINDS.has(r.spanKind) ? r.spanKind : 'UNKNOWN',
    status: {
      code: typeof status.code === 'string' && STATUS_CODES.has(status.code) ? (status.code as SpanStatusCode) : 'UNSET',
      message: clippedText(stringOr(status.message, ''), MESSAGE_MAX_BYTES),
    },
    startTimeUnixNano: storableNanos(r.startTimeUnixNano),
    endTimeUnixNano: storableNanos(r.endTimeUnixNano),
    attributes: storableAttributesAt(r.attributes, 1),
    events: events.map(storableEvent),
    resource: typeof r.resource === 'number' && Number.isSafeInteger(r.resource) && r.resource >= 0 ? r.resource : 0,
    sessionId: typeof r.sessionId === 'string' && r.sessionId.trim() !== '' ? storableName(r.sessionId) : null,
  };
  const same =
    span.traceId === r.traceId &&
    span.spanId === r.spanId &&
    span.parentId === r.parentId &&
    span.name === r.name &&
    span.kind === r.kind &&
    span.spanKind === r.spanKind &&
    span.status.code === status.code &&
    span.status.message === status.message &&
    span.startTimeUnixNano === r.startTimeUnixNano &&
    span.endTimeUnixNano === r.endTimeUnixNano &&
    span.attributes === r.attributes &&
    span.events.every((e, i) => e === events[i]) &&
    events === r.events &&
    span.resource === r.resource &&
    span.sessionId === r.sessionId;
  return same ? (s as SpanRecord) : span;
};

/**
 * The batch with every field storable: the spans' strings, numbers and nesting (see above) and
 * the project name (control characters replaced, cut to NAME_MAX_BYTES). The same object when
 * nothing needed fixing: this runs on every export request and on every event the projector reads.
 */
export const storableBatch = (batch: SpanBatch): SpanBatch => {
  const b: Record<string, unknown> = isRecord(batch) ? batch : {};
  const rawSpans = Array.isArray(b.spans) ? b.spans : [];
  const rawResources = Array.isArray(b.resources) ? b.resources : [];
  const spans = rawSpans.map(storableSpan);
  const resources = rawResources.map((r) => storableAttributesAt(r, 1));
  const projectName = storableName(stringOr(b.projectName, ''));
  if (
    projectName === b.projectName &&
    rawSpans === b.spans &&
    rawResources === b.resources &&
    spans.every((s, i) => s === rawSpans[i]) &&
    resources.every((r, i) => r === rawResources[i])
  ) {
    return batch;
  }
  return { projectName, resources, spans };
};
