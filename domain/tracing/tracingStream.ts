import { randomUUID } from 'node:crypto';

/**
 * A fresh stream per export request, appended with `no_stream`. Concurrent exporters to one
 * project then never contend for one stream's next revision (a shared project stream would make
 * every concurrent append but one fail and resend megabytes of spans); nothing ever folds these
 * streams, the projector reads them in global order. Measured: see domain/tracing/README.md.
 */
export const ingestStream = (projectId: string): string => `spans-${projectId}-${randomUUID()}`;

/** Deletions of one project's telemetry: rare, user-driven, and kept together for the audit trail. */
export const telemetryDeletionStream = (projectId: string): string => `tracing-${projectId}`;
