import { z } from 'zod';
import { buildSpanRecord } from '../domain/tracing/buildSpanRecord.ts';
import type { SpanRecord } from '../domain/tracing/events.ts';
import { phoenixSpanInput, spanInputFromJson } from './phoenixSpanJson.ts';
import type { RoutedSpans } from './routeSpans.ts';

/** One place a span is not in Phoenix's shape, as FastAPI reports it (the client maps `loc` back to the spans it sent). */
export type SpanShapeIssue = { readonly loc: (string | number)[]; readonly msg: string; readonly type: string };
/** A span in the right shape that cannot be stored (bad ids or times), as Phoenix reports it. */
export type InvalidSpan = { readonly span_id: string; readonly trace_id: string; readonly error: string };

/**
 * What a `POST /v1/projects/{id}/spans` body holds. The request is all or nothing, like Phoenix's:
 * anything but `spans` with no `invalid` one refuses it whole.
 */
export type PhoenixVerdict =
  | { readonly kind: 'malformed'; readonly message: string }
  | { readonly kind: 'not_envelope'; readonly issues: readonly SpanShapeIssue[] }
  | { readonly kind: 'not_spans'; readonly issues: readonly SpanShapeIssue[] }
  | { readonly kind: 'spans'; readonly received: number; readonly invalid: readonly InvalidSpan[] };

/** The decoded body: its valid spans in one batch for the project (as an OTLP export's), and the verdict. */
export type DecodedPhoenixSpans = RoutedSpans & { readonly phoenix: PhoenixVerdict };

const envelope = z.object({ data: z.array(z.unknown()) });

const issuesOf = (error: z.ZodError, at: (string | number)[]): SpanShapeIssue[] =>
  error.issues.map((issue) => ({
    loc: [...at, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))],
    msg: issue.message,
    type: issue.code,
  }));

/**
 * Parses and validates Phoenix's span JSON (`{"data": [span, ...]}`) and builds the span records
 * with the same `buildSpanRecord` OTLP uses. Runs where OTLP decoding runs (exportDecoder.ts:
 * off the main thread for a large body), since parsing and validating 50,000 spans costs seconds.
 */
export const decodePhoenixSpans = (body: Uint8Array, projectName: string): DecodedPhoenixSpans => {
  const refused = (phoenix: PhoenixVerdict): DecodedPhoenixSpans => ({
    batches: [],
    acceptedSpans: 0,
    rejectedSpans: 0,
    errorMessage: '',
    phoenix,
  });
  let value: unknown;
  try {
    const text = new TextDecoder().decode(body);
    // No body at all is a missing envelope (422, as FastAPI says), not malformed JSON.
    value = text.trim() === '' ? undefined : JSON.parse(text);
  } catch (e) {
    return refused({ kind: 'malformed', message: (e as Error).message });
  }
  const outer = envelope.safeParse(value);
  if (!outer.success) return refused({ kind: 'not_envelope', issues: issuesOf(outer.error, ['body']) });
  const issues: SpanShapeIssue[] = [];
  const parsed = outer.data.data.map((raw, i) => {
    const r = phoenixSpanInput.safeParse(raw);
    if (!r.success) issues.push(...issuesOf(r.error, ['body', 'data', i]));
    return r.success ? r.data : null;
  });
  if (issues.length > 0) return refused({ kind: 'not_spans', issues });
  const invalid: InvalidSpan[] = [];
  const spans: SpanRecord[] = [];
  for (const input of parsed) {
    const result = buildSpanRecord(spanInputFromJson(input!), 0);
    if (result.ok) spans.push(result.span);
    else invalid.push({ span_id: input!.context.span_id, trace_id: input!.context.trace_id, error: result.reason });
  }
  return {
    batches: spans.length > 0 ? [{ projectName, resources: [{}], spans }] : [],
    acceptedSpans: spans.length,
    rejectedSpans: invalid.length,
    errorMessage: '',
    phoenix: { kind: 'spans', received: parsed.length, invalid },
  };
};
