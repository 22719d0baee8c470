// Kept only for api/rest/tracing's two importers while its handlers are being converted; everything
// else imports these from events.ts. Delete this file once those two point at events.ts.
export {
  OTEL_SPAN_KINDS,
  type OtelSpanKind,
  SPAN_STATUS_CODES,
  type SpanBatch,
  type SpanEventRecord,
  type SpanRecord,
  type SpanStatusCode,
} from './events.ts';
