import { copyField, copyJsonField } from '../copyFromStdin.ts';
import { nanosToIsoMicros } from '../../domain/tracing/nanoTime.ts';
import { renderAttributes, renderEventAttributes } from '../../domain/tracing/renderAttributes.ts';
import type { SpanRecord } from '../../domain/tracing/events.ts';
import type { PriceBook } from '../../domain/prices/priceBook.ts';
import type { Cost } from '../../domain/prices/spanCost.ts';
import { attributeIndexObject } from './attributeFilter.ts';
import { llmSpanCost } from './llmSpanCost.ts';
import { llmTokenCounts } from './llmTokenCounts.ts';

/**
 * One span rendered for the `spans` table, before the database is asked anything: every column
 * but the three that depend on what is stored (id, trace_rowid, project_id) is already a field of
 * COPY's text format in `fields` (attribute_index included, times as ISO text), so Postgres
 * computes nothing and parses each value once. The rest is what the trace and session rows need.
 */
export type RenderedSpan = {
  readonly span: SpanRecord;
  readonly startMicros: bigint;
  readonly endMicros: bigint;
  /** USD at the price in force at its start; null for other kinds and models without a price. */
  readonly cost: Cost | null;
  /** The row's other columns (SPAN_COLUMNS after the first three), tab-separated, escaped for COPY. */
  readonly fields: string;
};

/** The `spans` columns in the order `spanCopyLine` writes them. */
export const SPAN_COLUMNS = [
  'id',
  'trace_rowid',
  'project_id',
  'span_id',
  'trace_id',
  'parent_id',
  'name',
  'span_kind',
  'otel_kind',
  'status_code',
  'status_message',
  'start_time',
  'end_time',
  'attributes',
  'attribute_index',
  'events',
  'llm_token_count_prompt',
  'llm_token_count_completion',
  'llm_model_name',
  'llm_provider',
  'cost_prompt',
  'cost_completion',
  'cost_total',
  'source_event',
] as const;

/** Unix nanoseconds (decimal string) as the microseconds timestamptz keeps (truncated, as nanosToIsoMicros). */
export const nanosToMicros = (nanos: string): bigint => BigInt(nanos) / 1000n;

export const renderSpan = (span: SpanRecord, prices: PriceBook): RenderedSpan => {
  const tokens = llmTokenCounts(span.spanKind, span.attributes);
  const start = nanosToIsoMicros(span.startTimeUnixNano);
  const { modelName, provider, cost } = llmSpanCost(prices, span.spanKind, span.attributes, start);
  const attributes = renderAttributes(span.attributes);
  const events = span.events.map((e) => ({
    name: e.name,
    time_unix_nano: e.timeUnixNano,
    attributes: renderEventAttributes(e.name, e.attributes),
  }));
  // Concatenated, not joined: V8 keeps a long concatenation as a rope of its parts, so the row's
  // text is copied once, when its COPY chunk is joined (copyFromStdin), instead of twice.
  const fields =
    `${copyField(span.spanId)}\t${copyField(span.traceId)}\t${copyField(span.parentId)}\t${copyField(span.name)}\t` +
    `${copyField(span.spanKind)}\t${copyField(span.kind)}\t${copyField(span.status.code)}\t${copyField(span.status.message)}\t` +
    `${start}\t${nanosToIsoMicros(span.endTimeUnixNano)}\t` +
    `${copyJsonField(JSON.stringify(attributes))}\t${copyJsonField(JSON.stringify(attributeIndexObject(attributes)))}\t` +
    `${copyJsonField(JSON.stringify(events))}\t${copyField(tokens.prompt)}\t${copyField(tokens.completion)}\t` +
    `${copyField(modelName)}\t${copyField(provider)}\t${copyField(cost?.prompt ?? null)}\t${copyField(cost?.completion ?? null)}\t${copyField(cost?.total ?? null)}`;
  return { span, startMicros: nanosToMicros(span.startTimeUnixNano), endMicros: nanosToMicros(span.endTimeUnixNano), cost, fields };
};

/** The `spans` row as one line of COPY text; `sourceEvent` is the id of the SpansIngested event it came from. */
export const spanCopyLine = (
  rendered: RenderedSpan,
  id: number,
  trace: { readonly id: number; readonly projectId: number },
  sourceEvent: string,
): string => `${id}\t${trace.id}\t${trace.projectId}\t${rendered.fields}\t${sourceEvent}\n`;
