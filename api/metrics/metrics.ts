import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EventStore } from '../../domain/eventstore/types.ts';
import type { SpanSink } from '../../ingest/spanSink.ts';
import type { LagMonitor } from '../../projections/projectionLag.ts';

/**
 * The server's Prometheus metrics, one registry per server (no prom-client global registry: tests
 * build several servers in one process). Labels are bounded sets only (transport, route template,
 * read model name, event type): never a project name, path with ids, or anything a client chose.
 */
export type Metrics = {
  readonly registry: Registry;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** Counts an export refused before it was stored, e.g. `projection_lag`, `in_flight_budget`. */
  ingestRefused(reason: string): void;
  /** Counts an export held back until the read models caught up (or refused after waiting), by reason. */
  ingestHeld(reason: string): void;
  /** Accepted spans and requests, per transport, after the sink made them durable. */
  instrumentSink<P>(sink: SpanSink<P>): SpanSink<P>;
  /** Every append's latency, per type of its first event. */
  instrumentStore(store: EventStore): EventStore;
  /** Projection lag gauges read from the monitor's latest sample at scrape time. */
  watchLag(monitor: LagMonitor): void;
};

export const createMetrics = (): Metrics => {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: 'loupe_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status, from arrival to the last byte of the response handed to Node',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const acceptedRequests = new Counter({
    name: 'loupe_ingest_accepted_requests_total',
    help: 'OTLP export requests whose spans were stored (acknowledged)',
    labelNames: ['transport'] as const,
    registers,
  });
  const acceptedSpans = new Counter({
    name: 'loupe_ingest_accepted_spans_total',
    help: 'Spans stored and acknowledged',
    labelNames: ['transport'] as const,
    registers,
  });
  const refused = new Counter({
    name: 'loupe_ingest_refused_requests_total',
    help: 'OTLP export requests refused with 503/RESOURCE_EXHAUSTED before anything was stored, by reason',
    labelNames: ['reason'] as const,
    registers,
  });
  const held = new Counter({
    name: 'loupe_ingest_held_requests_total',
    help: 'OTLP export requests held back before their body was read until the read models caught up, by reason',
    labelNames: ['reason'] as const,
    registers,
  });
  const appendDuration = new Histogram({
    name: 'loupe_event_append_duration_seconds',
    help: 'Appends to the event log (one transaction each), by type of the first event',
    labelNames: ['type'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  let monitor: LagMonitor | null = null;
  new Gauge({
    name: 'loupe_projection_lag_events',
    help: 'Committed events a read model has not applied yet (sampled every second)',
    labelNames: ['projection'] as const,
    registers,
    collect() {
      for (const lag of monitor?.current() ?? []) this.set({ projection: lag.name }, lag.events);
    },
  });
  new Gauge({
    name: 'loupe_projection_lag_seconds',
    help: 'Age of the oldest event a read model has not applied yet: how long users have not seen it (0 when caught up)',
    labelNames: ['projection'] as const,
    registers,
    collect() {
      for (const lag of monitor?.current() ?? []) this.set({ projection: lag.name }, lag.seconds);
    },
  });
  new Gauge({
    name: 'loupe_projection_drain_seconds',
    help: 'Time a read model needs to apply its pending events at the rate it was measured applying them while busy (0 until known)',
    labelNames: ['projection'] as const,
    registers,
    collect() {
      for (const lag of monitor?.current() ?? []) this.set({ projection: lag.name }, lag.drainSeconds);
    },
  });
  new Gauge({
    name: 'loupe_projection_stopped',
    help: '1 while a read model is stopped at an event it cannot apply (see `loupe projections status`)',
    labelNames: ['projection'] as const,
    registers,
    collect() {
      for (const lag of monitor?.current() ?? []) this.set({ projection: lag.name }, lag.stopped ? 1 : 0);
    },
  });

  return {
    registry,
    httpDuration,
    ingestRefused: (reason) => refused.inc({ reason }),
    ingestHeld: (reason) => held.inc({ reason }),
    instrumentSink: (sink) => async (batches, context) => {
      await sink(batches, context);
      acceptedRequests.inc({ transport: context.transport });
      acceptedSpans.inc(
        { transport: context.transport },
        batches.reduce((n, b) => n + b.spans.length, 0),
      );
    },
    instrumentStore: (store) => ({
      ...store,
      appendToStream: async (stream, events, expected) => {
        const end = appendDuration.startTimer({ type: events[0]?.type ?? 'none' });
        try {
          return await store.appendToStream(stream, events, expected);
        } finally {
          end();
        }
      },
    }),
    watchLag(m) {
      monitor = m;
    },
  };
};
