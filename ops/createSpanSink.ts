import { actorOf } from '../domain/access/actor.ts';
import type { Principal } from '../domain/access/principal.ts';
import { mayIngestInto } from '../domain/access/projectStanding.ts';
import { AppendTooLargeError, type EventStore } from '../domain/eventstore/types.ts';
import { ingestSpans } from '../domain/tracing/ingestSpans.ts';
import { IngestError } from '../ingest/ingestError.ts';
import type { SpanSink } from '../ingest/spanSink.ts';

/** OTLP receivers → `ingestSpans` (which cuts large batches into events of bounded size); resolves once all are durable. */
export const createSpanSink =
  (store: EventStore): SpanSink<Principal | null> =>
  (batches, context) =>
    ingestSpans(
      store,
      batches,
      { actor: actorOf(context.principal), requestId: context.requestId },
      { mayStoreInto: mayIngestInto(context.principal) },
    ).then(
      () => undefined,
      (error: unknown) => {
        // EventStoreDB refuses appends over its MaxAppendSize: the exporter must send smaller
        // batches, a retry of the same one would be refused again.
        if (error instanceof AppendTooLargeError)
          throw new IngestError('payload_too_large', `${error.message}; send smaller export batches`);
        throw error;
      },
    );
