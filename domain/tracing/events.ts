import type { DomainEvent } from '../decider.ts';

/**
 * Span, event and resource attributes as stored in `SpansIngested` events.
 *
 * Each value keeps its OTLP type as a one-key object, because JSON alone cannot tell an int from
 * a float (`2` vs `2.0`) and the REST attribute filters select by stored type.
 * - `int` is the int64 as a decimal string: a JSON number would lose precision beyond 2^53.
 * - `float` is a JSON number, or "NaN" / "Infinity" / "-Infinity", which JSON has no number for.
 * - `bytes` is base64.
 * - `null` is an OTLP AnyValue with no value set ("empty" in the OTLP spec).
 * Keys are unique; when a sender repeats a key, the last value wins.
 */
export type AttributeValue =
  | { readonly str: string }
  | { readonly int: string }
  | { readonly float: number | 'NaN' | 'Infinity' | '-Infinity' }
  | { readonly bool: boolean }
  | { readonly bytes: string }
  | { readonly array: readonly AttributeValue[] }
  | { readonly kvlist: Attributes }
  | null;

export type Attributes = { readonly [key: string]: AttributeValue };

/** OTLP `Span.SpanKind` by its proto enum name; unknown numbers are read as UNSPECIFIED. */
export type OtelSpanKind =
  | 'SPAN_KIND_UNSPECIFIED'
  | 'SPAN_KIND_INTERNAL'
  | 'SPAN_KIND_SERVER'
  | 'SPAN_KIND_CLIENT'
  | 'SPAN_KIND_PRODUCER'
  | 'SPAN_KIND_CONSUMER';

export const OTEL_SPAN_KINDS: readonly OtelSpanKind[] = [
  'SPAN_KIND_UNSPECIFIED',
  'SPAN_KIND_INTERNAL',
  'SPAN_KIND_SERVER',
  'SPAN_KIND_CLIENT',
  'SPAN_KIND_PRODUCER',
  'SPAN_KIND_CONSUMER',
];

/** OTLP status codes 0/1/2 by the names Phoenix shows. */
export type SpanStatusCode = 'UNSET' | 'OK' | 'ERROR';

export const SPAN_STATUS_CODES: readonly SpanStatusCode[] = ['UNSET', 'OK', 'ERROR'];

export type SpanEventRecord = {
  readonly name: string;
  /** Unix time in nanoseconds, decimal string ("0" when the sender gave none). */
  readonly timeUnixNano: string;
  readonly attributes: Attributes;
};

/**
 * One span as normalised at ingest. Released event shape (inside `SpansIngested`): never change
 * it; a new shape is a new event version with an upcaster.
 */
export type SpanRecord = {
  /** 32 lowercase hex characters, never all zero. */
  readonly traceId: string;
  /** 16 lowercase hex characters, never all zero. */
  readonly spanId: string;
  /** 16 lowercase hex characters, or null for a root span (empty or all-zero parent id). */
  readonly parentId: string | null;
  readonly name: string;
  readonly kind: OtelSpanKind;
  /**
   * The `openinference.span.kind` attribute, upper-cased and checked against the OpenInference
   * kinds; UNKNOWN when absent or not one of them. The raw value stays in `attributes`.
   */
  readonly spanKind: string;
  readonly status: { readonly code: SpanStatusCode; readonly message: string };
  /** Unix times in nanoseconds as decimal strings: exact, and JSON has no 64-bit integer. */
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly attributes: Attributes;
  readonly events: readonly SpanEventRecord[];
  /** Index into the batch's `resources`: resource attributes are shared by many spans. */
  readonly resource: number;
  /** From the `session.id` attribute, as Phoenix derives it (see `sessionIdOf`); null if none. */
  readonly sessionId: string | null;
};

/**
 * The spans of one export request that belong to one project: the data of one `SpansIngested`
 * event. `resources` holds each distinct resource's attributes once.
 */
export type SpanBatch = {
  readonly projectName: string;
  readonly resources: readonly Attributes[];
  readonly spans: readonly SpanRecord[];
};

/**
 * One OTLP export request's spans for one project, appended once the request is decoded and
 * validated (one append per project per request, never one per span). `projectId` names the
 * project incarnation the spans were sent to: spans that land after that project was deleted
 * are dropped with it, never attached to a later project of the same name.
 */
export type SpansIngestedData = SpanBatch & {
  readonly projectId: string;
  /** Spans removed from this event since (retention, erasure): where they were, never what they held. */
  readonly erased?: readonly ErasedSpan[];
};
export type SpansIngested = DomainEvent<'SpansIngested', SpansIngestedData>;

/**
 * Deletions of telemetry, by OpenTelemetry / user ids (never read-model row ids). The projector
 * does the cascade: a span alone (its trace goes when it was the last one); a trace with its
 * spans; a session with its traces and their spans.
 */
export type SpanDeleted = DomainEvent<'SpanDeleted', { readonly projectId: string; readonly spanId: string }>;
export type TraceDeleted = DomainEvent<'TraceDeleted', { readonly projectId: string; readonly traceId: string }>;
export type SessionDeleted = DomainEvent<'SessionDeleted', { readonly projectId: string; readonly sessionId: string }>;

/**
 * Traces one run of a retention policy expired in one project: read like the TraceDeleted of each
 * listed trace, but one event (and one audit entry) per run and project instead of one per trace,
 * so what an expired trace leaves in the log is its id. Ids only, never content; at most
 * MAX_EXPIRED_PER_EVENT of them (telemetryDeletionDecider.ts; a bigger run is several events).
 * `policyId` is the policy's id or `default`; `startedBefore` the cut-off by age and `maxTraces`
 * the count kept, as the run applied them (null: that rule is not set).
 */
export type TracesExpired = DomainEvent<
  'TracesExpired',
  {
    readonly projectId: string;
    readonly policyId: string;
    readonly startedBefore: string | null;
    readonly maxTraces: number | null;
    readonly traceIds: readonly string[];
  }
>;

export type TelemetryDeletionEvent = SpanDeleted | TraceDeleted | SessionDeleted | TracesExpired;

export type TracingEvent = SpansIngested | TelemetryDeletionEvent;

/**
 * What stays of a span removed from a `SpansIngested` event (retention, erasure): where it was in
 * the event (`at`, its index among all the event's spans as first stored), its trace and its
 * session id. Nothing of its content. The projectors hand out row ids and attach traces to
 * sessions in the order they meet spans, so a rebuild must meet the removed ones too (without
 * building rows for them) to give every remaining row the id it has live.
 */
export type ErasedSpan = { readonly at: number; readonly traceId: string; readonly sessionId: string | null };
