import type { DomainEvent } from '../decider.ts';
import type { SpanBatch } from './spanRecord.ts';

/**
 * One OTLP export request's spans for one project, appended once the request is decoded and
 * validated (one append per project per request, never one per span). `projectId` names the
 * project incarnation the spans were sent to: spans that land after that project was deleted
 * are dropped with it, never attached to a later project of the same name.
 */
export type SpansIngestedData = SpanBatch & {
  readonly projectId: string;
  /** Spans removed from this event since (retention, erasure): where they were, never what they held. */
  readonly erased?: readonly ErasedSpan[];
};
export type SpansIngested = DomainEvent<'SpansIngested', SpansIngestedData>;

/**
 * Deletions of telemetry, by OpenTelemetry / user ids (never read-model row ids). The projector
 * does the cascade: a span alone (its trace goes when it was the last one); a trace with its
 * spans; a session with its traces and their spans.
 */
export type SpanDeleted = DomainEvent<'SpanDeleted', { readonly projectId: string; readonly spanId: string }>;
export type TraceDeleted = DomainEvent<'TraceDeleted', { readonly projectId: string; readonly traceId: string }>;
export type SessionDeleted = DomainEvent<'SessionDeleted', { readonly projectId: string; readonly sessionId: string }>;

/**
 * Traces one run of a retention policy expired in one project: read like the TraceDeleted of each
 * listed trace, but one event (and one audit entry) per run and project instead of one per trace,
 * so what an expired trace leaves in the log is its id. Ids only, never content; at most
 * MAX_EXPIRED_PER_EVENT of them (telemetryDeletionDecider.ts; a bigger run is several events).
 * `policyId` is the policy's id or `default`; `startedBefore` the cut-off by age and `maxTraces`
 * the count kept, as the run applied them (null: that rule is not set).
 */
export type TracesExpired = DomainEvent<
  'TracesExpired',
  {
    readonly projectId: string;
    readonly policyId: string;
    readonly startedBefore: string | null;
    readonly maxTraces: number | null;
    readonly traceIds: readonly string[];
  }
>;

export type TelemetryDeletionEvent = SpanDeleted | TraceDeleted | SessionDeleted | TracesExpired;

export type TracingEvent = SpansIngested | TelemetryDeletionEvent;

/**
 * What stays of a span removed from a `SpansIngested` event (retention, erasure): where it was in
 * the event (`at`, its index among all the event's spans as first stored), its trace and its
 * session id. Nothing of its content. The projectors hand out row ids and attach traces to
 * sessions in the order they meet spans, so a rebuild must meet the removed ones too (without
 * building rows for them) to give every remaining row the id it has live.
 */
export type ErasedSpan = { readonly at: number; readonly traceId: string; readonly sessionId: string | null };
