import type { SpanBatch } from '../domain/tracing/events.ts';

/** Who sent an export request, for the event metadata the sink writes. */
export type IngestRequestContext<P = unknown> = {
  readonly transport: 'http' | 'grpc';
  /** What authentication established (HTTP: from the Koa context; gRPC: from `authenticate`). */
  readonly principal: P;
  readonly requestId: string | null;
};

/**
 * Stores the valid spans of one export request, one batch per project. It must resolve only
 * once the data is durable: the receivers acknowledge the request right after. It is not called
 * for a request with no valid span.
 */
export type SpanSink<P = unknown> = (batches: readonly SpanBatch[], context: IngestRequestContext<P>) => Promise<void>;
