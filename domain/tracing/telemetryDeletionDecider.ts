import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import { activeProject, evolveProject } from '../projects/projectDecider.ts';
import type { ProjectEvent } from '../projects/events.ts';
import type { ProjectState } from '../projects/projectState.ts';
import type { TelemetryDeletionEvent } from './events.ts';

/** Ids of one project's telemetry to delete; ids that do not exist (any more) are the caller's to filter. */
export type DeleteTelemetry =
  | { readonly type: 'DeleteSpans'; readonly projectId: string; readonly spanIds: readonly string[] }
  | { readonly type: 'DeleteTraces'; readonly projectId: string; readonly traceIds: readonly string[] }
  | { readonly type: 'DeleteSessions'; readonly projectId: string; readonly sessionIds: readonly string[] }
  /** A retention policy's run expiring these traces of the project (`policyId`: its id or `default`). */
  | {
      readonly type: 'ExpireTraces';
      readonly projectId: string;
      readonly policyId: string;
      readonly startedBefore: string | null;
      readonly maxTraces: number | null;
      readonly traceIds: readonly string[];
    };

/** Trace ids per TracesExpired (~40 bytes each in the log): one event stays under ~200 KB however big the run. */
export const MAX_EXPIRED_PER_EVENT = 5000;

const unique = (ids: readonly string[]): string[] => [...new Set(ids)];
const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

const decide = (c: DeleteTelemetry, state: ProjectState): TelemetryDeletionEvent[] => {
  const { projectId } = activeProject(state, c.projectId);
  switch (c.type) {
    case 'DeleteSpans':
      return unique(c.spanIds).map((spanId) => ({ type: 'SpanDeleted', data: { projectId, spanId } }));
    case 'DeleteTraces':
      return unique(c.traceIds).map((traceId) => ({ type: 'TraceDeleted', data: { projectId, traceId } }));
    case 'DeleteSessions':
      if (c.sessionIds.some((id) => id === '')) throw new DomainError('invalid_session_id', 'A session id must not be empty');
      return unique(c.sessionIds).map((sessionId) => ({ type: 'SessionDeleted', data: { projectId, sessionId } }));
    case 'ExpireTraces': {
      const { policyId, startedBefore, maxTraces } = c;
      return chunks(unique(c.traceIds), MAX_EXPIRED_PER_EVENT).map((traceIds) => ({
        type: 'TracesExpired',
        data: { projectId, policyId, startedBefore, maxTraces, traceIds },
      }));
    }
  }
};

/**
 * Deleting telemetry is judged against the project's lifecycle (it must still be the same,
 * active project) but the events go to the project's deletion stream, not the project stream:
 * the project stream is read on every export request and must stay a handful of events long.
 */
export const telemetryDeletionDecider: Decider<ProjectState, DeleteTelemetry, ProjectEvent | TelemetryDeletionEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveProject,
  decide,
};
