import { actorOf } from '../domain/access/actor.ts';
import type { Principal } from '../domain/access/principal.ts';
import type { EventStore } from '../domain/eventstore/types.ts';
import { ingestSpans } from '../domain/tracing/ingestSpans.ts';
import type { SpanSink } from '../ingest/spanSink.ts';

/** OTLP receivers → one SpansIngested append per project per request; resolves once durable. */
export const createSpanSink =
  (store: EventStore): SpanSink<Principal | null> =>
  async (batches, context) => {
    await ingestSpans(store, batches, { actor: actorOf(context.principal), requestId: context.requestId });
  };
