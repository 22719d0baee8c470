import type { SpanBatch, SpanRecord } from './events.ts';

/**
 * Spans per SpansIngested event, whatever path they came in by (OTLP, REST, the playground). One
 * event per request would make a 50,000-span request one ~50 MB JSON value: serialized, written
 * (on embedded PGlite, by WASM on the main thread) and later applied by the projections as single
 * uninterruptible steps of seconds each, during which the server answers nothing, not even
 * /healthz. In pieces of this size each step stays short and the event loop gets a turn between
 * them. Splitting is safe: a failure part-way fails the request (nothing is acknowledged), and
 * spans stored again by a retry are skipped by span id.
 */
export const MAX_SPANS_PER_EVENT = 2000;

/** A batch cut into batches of at most `size` spans, each carrying only the resources its spans use. */
export const splitBatch = (batch: SpanBatch, size: number = MAX_SPANS_PER_EVENT): SpanBatch[] => {
  if (batch.spans.length <= size) return [batch];
  const parts: SpanBatch[] = [];
  for (let from = 0; from < batch.spans.length; from += size) {
    const renumbered = new Map<number, number>();
    const resources: SpanBatch['resources'][number][] = [];
    const spans: SpanRecord[] = batch.spans.slice(from, from + size).map((span) => {
      let index = renumbered.get(span.resource);
      if (index === undefined) {
        index = resources.length;
        renumbered.set(span.resource, index);
        resources.push(batch.resources[span.resource]!);
      }
      return index === span.resource ? span : { ...span, resource: index };
    });
    parts.push({ ...batch, resources, spans });
  }
  return parts;
};
