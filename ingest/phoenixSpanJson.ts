import { z } from 'zod';
import { attributesFrom, floatValue, type Attributes, type AttributeValue } from '../domain/tracing/attributes.ts';
import type { SpanInput } from '../domain/tracing/buildSpanRecord.ts';
import { MAX_DEPTH } from '../domain/base/storableText.ts';
import { TOO_DEEP_VALUE } from '../domain/tracing/storable.ts';
import { OPENINFERENCE_SPAN_KIND_KEY } from '../domain/tracing/openInferenceSpanKind.ts';
import { SPAN_STATUS_CODES } from '../domain/tracing/events.ts';

const TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/i;

/** Unix nanoseconds of a timezone-aware ISO time (nanosecond fractions kept), or null. */
export const isoToNanos = (iso: string): bigint | null => {
  const m = TIME.exec(iso.trim());
  if (!m) return null;
  const ms = Date.parse(`${m[1]}${m[3]!.toUpperCase() === 'Z' ? 'Z' : m[3]}`);
  if (Number.isNaN(ms)) return null;
  return BigInt(ms) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
};

const awareTime = z.string().refine((s) => isoToNanos(s) !== null, 'must be an ISO-8601 date-time with a time zone');

/** Phoenix's span JSON as `POST /v1/projects/{id}/spans` takes it (docs/reference/rest-facts.md §4.3.3). */
export const phoenixSpanInput = z.object({
  id: z.string().optional(),
  name: z.string(),
  context: z.object({ trace_id: z.string(), span_id: z.string() }),
  span_kind: z.string(),
  parent_id: z.string().nullable().optional(),
  start_time: awareTime,
  end_time: awareTime,
  status_code: z.string(),
  status_message: z.string().optional(),
  attributes: z.record(z.string(), z.unknown()).optional(),
  events: z
    .array(z.object({ name: z.string(), timestamp: awareTime, attributes: z.record(z.string(), z.unknown()).optional() }))
    .optional(),
});

export type PhoenixSpanInput = z.infer<typeof phoenixSpanInput>;

/**
 * Plain JSON as typed attributes: integers as int, other numbers as float, objects as kvlists.
 * Nesting past storable depth (storable.ts) is not walked: 50,000 nested objects are one marker.
 */
const typed = (v: unknown, depth: number): AttributeValue => {
  if (v === null || v === undefined) return null;
  if (depth > MAX_DEPTH) return TOO_DEEP_VALUE;
  if (typeof v === 'string') return { str: v };
  if (typeof v === 'boolean') return { bool: v };
  if (typeof v === 'number') return Number.isSafeInteger(v) ? { int: String(v) } : floatValue(v);
  if (Array.isArray(v)) return { array: v.map((x) => typed(x, depth + 1)) };
  if (typeof v === 'object') return { kvlist: typedAttributes(v as Record<string, unknown>, depth + 1) };
  return { str: String(v) };
};

const typedAttributes = (plain: Record<string, unknown>, depth = 1): Attributes =>
  attributesFrom(Object.entries(plain).map(([k, v]) => [k, typed(v, depth)] as const));

const OTEL_INTERNAL = 1;

/**
 * The span as a wire decoder would hand it to buildSpanRecord. As in Phoenix, `span_kind` goes
 * back into the `openinference.span.kind` attribute as sent, and an unknown status is UNSET.
 */
export const spanInputFromJson = (s: PhoenixSpanInput): SpanInput => {
  const status = SPAN_STATUS_CODES.indexOf(s.status_code.trim().toUpperCase() as (typeof SPAN_STATUS_CODES)[number]);
  return {
    traceId: s.context.trace_id.toLowerCase(),
    spanId: s.context.span_id.toLowerCase(),
    parentSpanId: (s.parent_id ?? '').toLowerCase(),
    name: s.name,
    kind: OTEL_INTERNAL,
    startTimeUnixNano: isoToNanos(s.start_time)!,
    endTimeUnixNano: isoToNanos(s.end_time)!,
    attributes: typedAttributes({ ...s.attributes, [OPENINFERENCE_SPAN_KIND_KEY]: s.span_kind }),
    events: (s.events ?? []).map((e) => ({
      name: e.name,
      timeUnixNano: isoToNanos(e.timestamp)!,
      attributes: typedAttributes(e.attributes ?? {}),
    })),
    status: { code: Math.max(status, 0), message: s.status_message ?? '' },
  };
};
