import type { DomainEvent } from '../decider.ts';

/**
 * A user's role on one restricted project, granted by an admin. On a restricted project it is
 * the user's role there whatever their global role (a global viewer with a MEMBER grant ingests
 * into it; a global member with a VIEWER grant only reads it). ANNOTATOR exists only here: it
 * reads and writes annotations and notes, nothing else.
 */
export const GRANT_ROLES = ['VIEWER', 'ANNOTATOR', 'MEMBER'] as const;
export type GrantRole = (typeof GRANT_ROLES)[number];

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

/**
 * A project was restricted (only admins, system keys and the users granted a role there see it)
 * or opened again (everyone sees it as before). Grants are kept while it is open.
 */
export type ProjectRestrictionSet = DomainEvent<'ProjectRestrictionSet', { readonly projectId: string; readonly restricted: boolean }>;

/** A user's role on the project (`GrantRole`): replaces any grant the user held there. */
export type ProjectGrantSet = DomainEvent<
  'ProjectGrantSet',
  { readonly projectId: string; readonly userId: string; readonly role: GrantRole }
>;

export type ProjectGrantRevoked = DomainEvent<'ProjectGrantRevoked', { readonly projectId: string; readonly userId: string }>;

export type ProjectEvent = ProjectCreated | ProjectUpdated | ProjectDeleted | ProjectRestrictionSet | ProjectGrantSet | ProjectGrantRevoked;
