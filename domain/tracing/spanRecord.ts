import type { Attributes } from './attributes.ts';

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
