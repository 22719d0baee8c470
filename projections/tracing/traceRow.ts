import { nanosToIsoMicros } from '../../domain/tracing/nanoTime.ts';
import { llmTokenCounts } from './llmTokenCounts.ts';
import type { RenderedSpan } from './renderSpan.ts';

const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;

/** A sum clamped into bigint, as recompute.ts clamps it in SQL. */
const clamped = (n: bigint): string => (n < INT8_MIN ? INT8_MIN : n > INT8_MAX ? INT8_MAX : n).toString();

/** One new `traces` row, final: its spans are all in this batch (it did not exist before). */
export type TraceRow = {
  readonly id: number;
  readonly trace_id: string;
  readonly project_id: number;
  session_id: number | null;
  start_time: string;
  end_time: string;
  root_span_id: string | null;
  span_count: number;
  error_count: number;
  token_count_prompt: string;
  token_count_completion: string;
  /** USD sums of the priced spans; null when none is priced. */
  cost_prompt: number | null;
  cost_completion: number | null;
  cost_total: number | null;
};

/** A span of this batch with its row id. */
export type PendingSpan = { readonly id: number; readonly rendered: RenderedSpan; readonly sourceEvent: string };

/**
 * The aggregates recompute.ts's `recomputeTraces` derives in SQL, derived from the spans in hand:
 * a trace created by this batch has no other spans, so its row is written once, final, instead of
 * inserted and updated. Cost sums add the priced spans' costs (null when none is). Times compare as the microseconds timestamptz keeps; the root is the
 * earliest parentless span (ties by row id); token sums are clamped into bigint.
 */
export const traceRow = (
  trace: { readonly id: number; readonly traceId: string; readonly projectId: number },
  spans: readonly PendingSpan[],
): TraceRow => {
  let start = spans[0]!;
  let end = spans[0]!;
  let root: PendingSpan | null = null;
  let errors = 0;
  let prompt = 0n;
  let completion = 0n;
  let cost: { prompt: number; completion: number; total: number } | null = null;
  for (const s of spans) {
    const { span, startMicros, endMicros } = s.rendered;
    if (startMicros < start.rendered.startMicros) start = s;
    if (endMicros > end.rendered.endMicros) end = s;
    const earliest =
      root === null || startMicros < root.rendered.startMicros || (startMicros === root.rendered.startMicros && s.id < root.id);
    if (span.parentId === null && earliest) root = s;
    if (span.status.code === 'ERROR') errors++;
    const tokens = llmTokenCounts(span.spanKind, span.attributes);
    prompt += BigInt(tokens.prompt ?? 0);
    completion += BigInt(tokens.completion ?? 0);
    const c = s.rendered.cost;
    if (c !== null)
      cost =
        cost === null
          ? { ...c }
          : { prompt: cost.prompt + c.prompt, completion: cost.completion + c.completion, total: cost.total + c.total };
  }
  return {
    id: trace.id,
    trace_id: trace.traceId,
    project_id: trace.projectId,
    session_id: null,
    start_time: nanosToIsoMicros(start.rendered.span.startTimeUnixNano),
    end_time: nanosToIsoMicros(end.rendered.span.endTimeUnixNano),
    root_span_id: root?.rendered.span.spanId ?? null,
    span_count: spans.length,
    error_count: errors,
    token_count_prompt: clamped(prompt),
    token_count_completion: clamped(completion),
    cost_prompt: cost?.prompt ?? null,
    cost_completion: cost?.completion ?? null,
    cost_total: cost?.total ?? null,
  };
};
