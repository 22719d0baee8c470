export {
  OTEL_SPAN_KINDS,
  type OtelSpanKind,
  SPAN_STATUS_CODES,
  type SpanBatch,
  type SpanEventRecord,
  type SpanRecord,
  type SpanStatusCode,
} from './events.ts';
