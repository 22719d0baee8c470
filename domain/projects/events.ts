import type { DomainEvent } from '../decider.ts';

/**
 * Events of one project's stream (`project-<hash of name>`, see projectStream). Every event
 * carries `projectId`: a name can be deleted and created again, and each incarnation is a
 * different project whose telemetry must not mix with the previous one's.
 */
export type ProjectCreated = DomainEvent<
  'ProjectCreated',
  {
    readonly projectId: string;
    readonly name: string;
    readonly description: string | null;
    readonly gradientStartColor: string;
    readonly gradientEndColor: string;
  }
>;

/** Only the fields that changed are present. */
export type ProjectUpdated = DomainEvent<
  'ProjectUpdated',
  {
    readonly projectId: string;
    readonly description?: string | null;
    readonly gradientStartColor?: string;
    readonly gradientEndColor?: string;
  }
>;

/** The projector removes the project's traces, spans and sessions with it. */
export type ProjectDeleted = DomainEvent<'ProjectDeleted', { readonly projectId: string; readonly name: string }>;

export type ProjectEvent = ProjectCreated | ProjectUpdated | ProjectDeleted;
