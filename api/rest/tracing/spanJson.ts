import type { JsonObject, JsonValue } from '../../../domain/base/jsonValue.ts';
import { OPENINFERENCE_SPAN_KIND_KEY } from '../../../domain/tracing/openInferenceSpanKind.ts';
import type { SpanRow } from '../../../projections/tracing/spanQueries.ts';
import { isoFromMicros, isoFromNanos } from '../../http/pythonIsoTime.ts';
import { globalIdOf } from '../../http/globalId.ts';
import { costJson } from '../../http/costJson.ts';

/**
 * Phoenix's REST span (docs/reference/rest-facts.md §5.1): `span_kind` is the `openinference.span.kind` attribute
 * as sent (or UNKNOWN) and is taken out of `attributes`; `cost` is Loupe's (`costJson`).
 */
export const spanJson = (s: SpanRow) => {
  const { [OPENINFERENCE_SPAN_KIND_KEY]: rawKind, ...attributes } = s.attributes;
  return {
    id: globalIdOf('Span', s.id),
    name: s.name,
    context: { trace_id: s.trace_id, span_id: s.span_id },
    span_kind: typeof rawKind === 'string' ? rawKind : 'UNKNOWN',
    parent_id: s.parent_id,
    start_time: isoFromMicros(s.start_us),
    end_time: isoFromMicros(s.end_us),
    status_code: s.status_code,
    status_message: s.status_message,
    attributes,
    events: s.events.map((e) => ({ name: e.name, timestamp: isoFromNanos(e.time_unix_nano), attributes: e.attributes })),
    cost: costJson(s),
  };
};

type AnyValue = {
  array_value: { values: AnyValue[] } | null;
  bool_value: boolean | null;
  bytes_value: string | null;
  double_value: number | string | null;
  int_value: bigint | null;
  kvlist_value: null;
  string_value: string | null;
};

const EMPTY: AnyValue = {
  array_value: null,
  bool_value: null,
  bytes_value: null,
  double_value: null,
  int_value: null,
  kvlist_value: null,
  string_value: null,
};

/** Phoenix's OTLP-style AnyValue: every key present, the unused ones null; objects have no representation. */
const anyValue = (v: JsonValue): AnyValue => {
  if (typeof v === 'string') return { ...EMPTY, string_value: v };
  if (typeof v === 'boolean') return { ...EMPTY, bool_value: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { ...EMPTY, int_value: BigInt(v) } : { ...EMPTY, double_value: v };
  if (Array.isArray(v)) {
    const kinds = new Set(v.map((x) => typeof x));
    // Heterogeneous lists are sent as strings, item by item.
    return { ...EMPTY, array_value: { values: v.map((x) => (kinds.size > 1 ? anyValue(String(x)) : anyValue(x as JsonValue))) } };
  }
  return EMPTY;
};

const keyValues = (attributes: JsonObject) => Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));

const STATUS = { UNSET: 0, OK: 1, ERROR: 2 } as Record<string, number>;

/** Phoenix's `/spans/otlpv1` span (docs/reference/rest-facts.md §5.2): hex ids, nanoseconds as JSON integers. */
export const otlpSpanJson = (s: SpanRow) => ({
  attributes: keyValues(s.attributes),
  dropped_attributes_count: null,
  dropped_events_count: null,
  dropped_links_count: null,
  end_time_unix_nano: s.end_us * 1000n,
  start_time_unix_nano: s.start_us * 1000n,
  events: s.events.map((e) => ({
    attributes: keyValues(e.attributes),
    dropped_attributes_count: null,
    name: e.name,
    time_unix_nano: BigInt(e.time_unix_nano),
  })),
  flags: null,
  kind: s.otel_kind,
  links: null,
  name: s.name,
  parent_span_id: s.parent_id,
  span_id: s.span_id,
  trace_id: s.trace_id,
  status: { code: STATUS[s.status_code] ?? 0, message: s.status_message },
  trace_state: null,
});

/**
 * JSON with bigints written as exact integers (nanosecond times exceed 2^53). Stored strings
 * never contain U+0000 (jsonb cannot hold it), so a NUL-prefixed marker cannot collide with data.
 */
export const jsonWithBigInts = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `\u0000${v}` : v)).replace(/"\\u0000(-?\d+)"/g, '$1');
