import type { Attributes } from './attributes.ts';
import { openInferenceSpanKindOf } from './openInferenceSpanKind.ts';
import { sessionIdOf } from './sessionId.ts';
import { OTEL_SPAN_KINDS, SPAN_STATUS_CODES, type SpanRecord } from './events.ts';
import { storableAttributes, storableSpan } from './storable.ts';

/**
 * A span as a wire decoder hands it over, before validation: ids as lowercase hex of the bytes
 * sent ('' when absent), enums as their numbers, times as bigint (0n when absent).
 */
export type SpanInput = {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly attributes: Attributes;
  readonly events: readonly { readonly name: string; readonly timeUnixNano: bigint; readonly attributes: Attributes }[];
  readonly status: { readonly code: number; readonly message: string };
};

export type BuildSpanResult = { readonly ok: true; readonly span: SpanRecord } | { readonly ok: false; readonly reason: string };

const HEX = /^[0-9a-f]*$/;
const ALL_ZERO = /^0*$/;

/** Why an id is unusable, or null. OTLP: a wrong length or all zero bytes is invalid. */
const idProblem = (field: string, hex: string, bytes: number): string | null => {
  if (!HEX.test(hex)) return `${field} is not hex`;
  if (hex.length % 2 !== 0) return `${field} has an odd number of hex digits`;
  if (hex.length !== bytes * 2) return `${field} must be ${bytes} bytes, got ${hex.length / 2}`;
  if (ALL_ZERO.test(hex)) return `${field} is all zero`;
  return null;
};

/**
 * Validates one span and normalises it. A span the store could not index or order (bad ids,
 * no start or end time) is rejected with a reason; everything else is kept as sent, like Phoenix
 * (an empty name, or an end before the start, is accepted), made storable (`storable.ts`: control
 * characters replaced, long names cut, deep nesting bounded). The kind and session id are read
 * from the storable attributes, so they are what the projector will see.
 */
export const buildSpanRecord = (input: SpanInput, resource: number): BuildSpanResult => {
  const problem =
    idProblem('trace_id', input.traceId, 16) ??
    idProblem('span_id', input.spanId, 8) ??
    (input.parentSpanId === '' || (HEX.test(input.parentSpanId) && input.parentSpanId.length === 16)
      ? null
      : idProblem('parent_span_id', input.parentSpanId, 8)) ??
    (input.startTimeUnixNano <= 0n ? 'start_time_unix_nano is missing' : null) ??
    (input.endTimeUnixNano <= 0n ? 'end_time_unix_nano is missing' : null);
  if (problem !== null) return { ok: false, reason: problem };
  const attributes = storableAttributes(input.attributes);
  return {
    ok: true,
    span: storableSpan({
      traceId: input.traceId,
      spanId: input.spanId,
      // Some SDKs send eight zero bytes rather than nothing for a root span.
      parentId: input.parentSpanId === '' || ALL_ZERO.test(input.parentSpanId) ? null : input.parentSpanId,
      name: input.name,
      kind: OTEL_SPAN_KINDS[input.kind] ?? 'SPAN_KIND_UNSPECIFIED',
      spanKind: openInferenceSpanKindOf(attributes),
      status: { code: SPAN_STATUS_CODES[input.status.code] ?? 'UNSET', message: input.status.message },
      startTimeUnixNano: input.startTimeUnixNano.toString(),
      endTimeUnixNano: input.endTimeUnixNano.toString(),
      attributes,
      events: input.events.map((e) => ({ name: e.name, timeUnixNano: e.timeUnixNano.toString(), attributes: e.attributes })),
      resource,
      sessionId: sessionIdOf(attributes),
    }),
  };
};
