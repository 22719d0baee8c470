import { randomBytes } from 'node:crypto';
import type { Attributes, AttributeValue } from '../../domain/tracing/attributes.ts';
import type { SpanBatch, SpanRecord } from '../../domain/tracing/events.ts';

export const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
export const newTraceId = (): string => hex(16);
export const newSpanId = (): string => hex(8);

/** Unix nanoseconds (decimal string) of an ISO time plus `extraNanos`. */
export const nanos = (iso: string, extraNanos = 0n): string => (BigInt(Date.parse(iso)) * 1_000_000n + extraNanos).toString();

/** Plain JS values as typed attributes: integers as int, other numbers as float. */
export const attrs = (plain: Record<string, string | number | boolean | readonly (string | number | boolean)[]>): Attributes => {
  const typed = (v: string | number | boolean): AttributeValue =>
    typeof v === 'string' ? { str: v } : typeof v === 'boolean' ? { bool: v } : Number.isInteger(v) ? { int: String(v) } : { float: v };
  return Object.fromEntries(
    Object.entries(plain).map(([k, v]) => [k, Array.isArray(v) ? { array: v.map(typed) } : typed(v as string | number | boolean)]),
  );
};

/** A valid normalised span; `sessionId` follows `session.id` unless given. */
export const spanRecord = (overrides: Partial<SpanRecord> & { readonly traceId: string }): SpanRecord => {
  const attributes = overrides.attributes ?? {};
  const session = attributes['session.id'];
  return {
    spanId: newSpanId(),
    parentId: null,
    name: 'span',
    kind: 'SPAN_KIND_INTERNAL',
    spanKind: 'UNKNOWN',
    status: { code: 'UNSET', message: '' },
    startTimeUnixNano: nanos('2024-01-01T00:00:00Z'),
    endTimeUnixNano: nanos('2024-01-01T00:00:01Z'),
    events: [],
    resource: 0,
    sessionId: session && 'str' in session ? session.str : null,
    ...overrides,
    attributes,
  };
};

export const batch = (projectName: string, spans: readonly SpanRecord[]): SpanBatch => ({
  projectName,
  resources: [{ 'service.name': { str: 'test' } }],
  spans,
});
