import type { DomainEvent } from '../decider.ts';
import type { SpanBatch } from './spanRecord.ts';

/**
 * One OTLP export request's spans for one project, appended once the request is decoded and
 * validated (one append per project per request, never one per span).
 */
export type SpansIngested = DomainEvent<'SpansIngested', SpanBatch>;

export type TracingEvent = SpansIngested;
