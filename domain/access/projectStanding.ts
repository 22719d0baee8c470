import { can } from './can.ts';
import type { ProjectState } from '../projects/projectState.ts';
import type { GrantRole } from './grantRole.ts';
import type { Permission } from './permissions.ts';
import { PERMISSIONS } from './permissions.ts';
import type { Principal } from './principal.ts';

/** What one project is to one principal: open, or restricted with the principal's grant there (null: none). */
export type ProjectStanding = { readonly restricted: false } | { readonly restricted: true; readonly grant: GrantRole | null };

export const OPEN: ProjectStanding = { restricted: false };

/**
 * Admins (session or key), system keys, the admin secret and everyone while auth is off see every
 * project: restriction never applies to them. Everyone else sees a restricted project only with a grant.
 */
export const seesEveryProject = (principal: Principal): boolean =>
  principal.kind === 'anonymous' || principal.kind === 'adminSecret' || principal.role === 'ADMIN' || principal.role === 'SYSTEM';

/**
 * The project dimension of THE table: may `principal` do what `permission` allows on a project it
 * stands to as `standing`? `hidden`: the project does not exist for it (answer 404 / null, never
 * naming it); `denied`: it sees the project but its role there does not hold the permission (403).
 * On an open project (or for one that is not there yet, `OPEN`) the global table decides.
 */
export const onProject = (
  principal: Principal | null,
  permission: Permission,
  standing: ProjectStanding,
): 'allowed' | 'hidden' | 'denied' => {
  if (principal === null) return 'denied';
  if (!standing.restricted || seesEveryProject(principal)) return can(principal, permission) ? 'allowed' : 'denied';
  if (standing.grant === null) return 'hidden';
  const rule = PERMISSIONS[permission];
  if (principal.kind === 'apiKey' && !rule.apiKeys) return 'denied';
  return rule.grants.includes(standing.grant) ? 'allowed' : 'denied';
};

/**
 * The edge's check for a `scope: 'project'` permission the global role does not hold: a grant that
 * holds it on some restricted project lets the request through to its project check.
 */
export const widenedByGrant = (principal: Principal | null, permission: Permission, grants: readonly GrantRole[]): boolean => {
  const rule = PERMISSIONS[permission];
  if (principal === null || rule.scope !== 'project') return false;
  if (principal.kind !== 'user' && !(principal.kind === 'apiKey' && principal.keyKind === 'user' && rule.apiKeys)) return false;
  return grants.some((g) => rule.grants.includes(g));
};

/** The standing from a project's own stream (authoritative at once): used where spans are stored. */
export const standingIn = (project: ProjectState, principal: Principal | null): ProjectStanding =>
  project.status !== 'active' || !project.restricted
    ? OPEN
    : { restricted: true, grant: principal === null || principal.kind === 'anonymous' ? null : (project.grants[principal.userId] ?? null) };

/** `ingestSpans`' `mayStoreInto` for a principal: the `ingest` permission on each project of the request. */
export const mayIngestInto =
  (principal: Principal | null) =>
  (project: ProjectState): boolean =>
    onProject(principal, 'ingest', standingIn(project, principal)) === 'allowed';
