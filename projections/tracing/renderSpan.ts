import { nanosToIsoMicros } from '../../domain/tracing/nanoTime.ts';
import { renderAttributes, renderEventAttributes } from '../../domain/tracing/renderAttributes.ts';
import type { SpanRecord } from '../../domain/tracing/spanRecord.ts';
import { attributeIndexObject } from './attributeFilter.ts';
import { llmTokenCounts } from './llmTokenCounts.ts';

/**
 * One span rendered for the `spans` table, before the database is asked anything: every column
 * but the three that depend on what is stored (id, trace_rowid, project_id) is already JSON text
 * in `columns` (attribute_index included, times as ISO text), so Postgres computes nothing and
 * parses each value once. The rest is what the trace and session rows need.
 */
export type RenderedSpan = {
  readonly span: SpanRecord;
  readonly startMicros: bigint;
  readonly endMicros: bigint;
  /** The row's other columns as a JSON object's members: `"span_id":"…",…` (no braces). */
  readonly columns: string;
};

/** Unix nanoseconds (decimal string) as the microseconds timestamptz keeps (truncated, as nanosToIsoMicros). */
export const nanosToMicros = (nanos: string): bigint => BigInt(nanos) / 1000n;

export const renderSpan = (span: SpanRecord): RenderedSpan => {
  const tokens = llmTokenCounts(span.spanKind, span.attributes);
  const attributes = renderAttributes(span.attributes);
  const columns = JSON.stringify({
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
    attributes,
    attribute_index: attributeIndexObject(attributes),
    events: span.events.map((e) => ({
      name: e.name,
      time_unix_nano: e.timeUnixNano,
      attributes: renderEventAttributes(e.name, e.attributes),
    })),
    llm_token_count_prompt: tokens.prompt,
    llm_token_count_completion: tokens.completion,
  });
  return {
    span,
    startMicros: nanosToMicros(span.startTimeUnixNano),
    endMicros: nanosToMicros(span.endTimeUnixNano),
    columns: columns.slice(1, -1),
  };
};

/** The `spans` row as jsonb_to_recordset reads it. */
export const spanRowJson = (rendered: RenderedSpan, id: number, trace: { readonly id: number; readonly projectId: number }): string =>
  `{"id":${id},"trace_rowid":${trace.id},"project_id":${trace.projectId},${rendered.columns}}`;
