import type { Attributes } from '../domain/tracing/attributes.ts';
import type { SpanInput } from '../domain/tracing/buildSpanRecord.ts';

/**
 * An ExportTraceServiceRequest after wire decoding, the same for protobuf and JSON: one entry
 * per ResourceSpans, its scopes flattened (the instrumentation scope is not kept, as in Phoenix).
 */
export type ResourceSpansInput = {
  readonly resourceAttributes: Attributes;
  readonly spans: readonly SpanInput[];
};

export type ExportRequestInput = readonly ResourceSpansInput[];
