import { nanosToIsoMicros } from '../../domain/tracing/nanoTime.ts';
import { renderAttributes, renderEventAttributes } from '../../domain/tracing/renderAttributes.ts';
import type { JsonObject } from '../../domain/tracing/jsonValue.ts';
import type { SpanRecord } from '../../domain/tracing/spanRecord.ts';
import { attributeIndexObject } from './attributeFilter.ts';
import { llmTokenCounts } from './llmTokenCounts.ts';

/**
 * One `spans` row as the projector sends it to Postgres: every column in its final form
 * (attribute_index included, times as ISO text), so Postgres computes nothing but parses it.
 */
export type SpanInsertRow = {
  readonly id: number;
  readonly span_id: string;
  readonly trace_rowid: number;
  readonly trace_id: string;
  readonly project_id: number;
  readonly parent_id: string | null;
  readonly name: string;
  readonly span_kind: string;
  readonly otel_kind: string;
  readonly status_code: string;
  readonly status_message: string;
  readonly start_time: string;
  readonly end_time: string;
  readonly attributes: JsonObject;
  readonly attribute_index: JsonObject;
  readonly events: readonly { readonly name: string; readonly time_unix_nano: string; readonly attributes: JsonObject }[];
  readonly llm_token_count_prompt: number | null;
  readonly llm_token_count_completion: number | null;
};

/** Unix nanoseconds (decimal string) as the microseconds timestamptz keeps (truncated, as nanosToIsoMicros). */
export const nanosToMicros = (nanos: string): bigint => BigInt(nanos) / 1000n;

export const spanInsertRow = (id: number, span: SpanRecord, trace: { readonly id: number; readonly projectId: number }): SpanInsertRow => {
  const tokens = llmTokenCounts(span.spanKind, span.attributes);
  const attributes = renderAttributes(span.attributes);
  return {
    id,
    span_id: span.spanId,
    trace_rowid: trace.id,
    trace_id: span.traceId,
    project_id: trace.projectId,
    parent_id: span.parentId,
    name: span.name,
    span_kind: span.spanKind,
    otel_kind: span.kind,
    status_code: span.status.code,
    status_message: span.status.message,
    start_time: nanosToIsoMicros(span.startTimeUnixNano),
    end_time: nanosToIsoMicros(span.endTimeUnixNano),
    attributes,
    attribute_index: attributeIndexObject(attributes),
    events: span.events.map((e) => ({
      name: e.name,
      time_unix_nano: e.timeUnixNano,
      attributes: renderEventAttributes(e.name, e.attributes),
    })),
    llm_token_count_prompt: tokens.prompt,
    llm_token_count_completion: tokens.completion,
  };
};
