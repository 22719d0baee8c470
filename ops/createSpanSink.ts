import { setImmediate as nextTurn } from 'node:timers/promises';
import { actorOf } from '../domain/access/actor.ts';
import type { Principal } from '../domain/access/principal.ts';
import { AppendTooLargeError, type EventStore } from '../domain/eventstore/types.ts';
import { IngestError } from '../ingest/ingestError.ts';
import { ingestSpans } from '../domain/tracing/ingestSpans.ts';
import type { SpanBatch, SpanRecord } from '../domain/tracing/spanRecord.ts';
import type { SpanSink } from '../ingest/spanSink.ts';

/**
 * Spans per SpansIngested event. One event per request would make a 50,000-span request one
 * ~50 MB JSON value: serialized, written (on embedded PGlite, by WASM on the main thread) and
 * later applied by the projections as single uninterruptible steps of seconds each, during which
 * the server answers nothing, not even /healthz. In pieces of this size each step stays short and
 * the event loop gets a turn between them. Splitting is safe: a failure part-way fails the request
 * (nothing is acknowledged), and spans stored by a retry again are skipped by span id.
 */
export const MAX_SPANS_PER_EVENT = 2000;

/** A batch cut into batches of at most `size` spans, each carrying only the resources its spans use. */
export const splitBatch = (batch: SpanBatch, size: number): SpanBatch[] => {
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

/** OTLP receivers → SpansIngested appends (per project, at most MAX_SPANS_PER_EVENT spans each); resolves once all are durable. */
export const createSpanSink =
  (store: EventStore, maxSpansPerEvent = MAX_SPANS_PER_EVENT): SpanSink<Principal | null> =>
  (batches, context) =>
    sinkInto(store, maxSpansPerEvent, batches, context).catch((error: unknown) => {
      // EventStoreDB refuses appends over its MaxAppendSize: the exporter must send smaller
      // batches, a retry of the same one would be refused again.
      if (error instanceof AppendTooLargeError) throw new IngestError('payload_too_large', `${error.message}; send smaller export batches`);
      throw error;
    });

const sinkInto = async (
  store: EventStore,
  maxSpansPerEvent: number,
  batches: Parameters<SpanSink<Principal | null>>[0],
  context: Parameters<SpanSink<Principal | null>>[1],
) => {
  const parts = batches.flatMap((batch) => splitBatch(batch, maxSpansPerEvent));
  const options = { actor: actorOf(context.principal), requestId: context.requestId };
  if (parts.length === batches.length) {
    await ingestSpans(store, batches, options);
    return;
  }
  for (const [i, part] of parts.entries()) {
    if (i > 0) await nextTurn();
    await ingestSpans(store, [part], options);
  }
};
