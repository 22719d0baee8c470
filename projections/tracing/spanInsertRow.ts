import { nanosToIsoMicros } from '../../domain/tracing/nanoTime.ts';
import { renderAttributes, renderEventAttributes } from '../../domain/tracing/renderAttributes.ts';
import type { JsonObject } from '../../domain/tracing/jsonValue.ts';
import type { SpanRecord } from '../../domain/tracing/spanRecord.ts';
import { llmTokenCounts } from './llmTokenCounts.ts';

/** One `spans` row as the projector sends it to Postgres (inside a JSON array parameter). */
export type SpanInsertRow = {
  readonly id: number;
  readonly span_id: string;
  readonly trace_id: string;
  readonly parent_id: string | null;
  readonly name: string;
  readonly span_kind: string;
  readonly otel_kind: string;
  readonly status_code: string;
  readonly status_message: string;
  readonly start_time: string;
  readonly end_time: string;
  readonly attributes: JsonObject;
  readonly events: readonly { readonly name: string; readonly time_unix_nano: string; readonly attributes: JsonObject }[];
  readonly llm_token_count_prompt: number | null;
  readonly llm_token_count_completion: number | null;
};

export const spanInsertRow = (id: number, span: SpanRecord): SpanInsertRow => {
  const tokens = llmTokenCounts(span.spanKind, span.attributes);
  return {
    id,
    span_id: span.spanId,
    trace_id: span.traceId,
    parent_id: span.parentId,
    name: span.name,
    span_kind: span.spanKind,
    otel_kind: span.kind,
    status_code: span.status.code,
    status_message: span.status.message,
    start_time: nanosToIsoMicros(span.startTimeUnixNano),
    end_time: nanosToIsoMicros(span.endTimeUnixNano),
    attributes: renderAttributes(span.attributes),
    events: span.events.map((e) => ({
      name: e.name,
      time_unix_nano: e.timeUnixNano,
      attributes: renderEventAttributes(e.name, e.attributes),
    })),
    llm_token_count_prompt: tokens.prompt,
    llm_token_count_completion: tokens.completion,
  };
};
