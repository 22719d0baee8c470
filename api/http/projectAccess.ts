import type Koa from 'koa';
import type { CommonQueryMethods } from 'slonik';
import type { GrantRole } from '../../domain/access/grantRole.ts';
import type { Permission } from '../../domain/access/permissions.ts';
import type { Principal } from '../../domain/access/principal.ts';
import { authorize } from '../../domain/access/authorize.ts';
import { onProject, OPEN, type ProjectStanding, seesEveryProject } from '../../domain/access/projectStanding.ts';
import { restrictedProjectsFor } from '../../projections/projects/projectAccessQueries.ts';
import { HttpError } from './httpError.ts';

/**
 * What the projects are to this request's principal, read once per request from the read model
 * (so a restriction or revocation holds from the next request on, on every process).
 * `hidden` goes into SQL as a predicate (`visibleProjects`); `require` is the project dimension of
 * the permission table for one project the request acts on.
 */
export type ProjectAccess = {
  /** Row ids of the restricted projects the principal has no grant on: they do not exist for it. */
  readonly hidden: readonly number[];
  /** The roles the principal holds on restricted projects (for the edge's widening). */
  readonly grants: readonly GrantRole[];
  readonly standing: (projectRowid: number) => ProjectStanding;
  /**
   * Throws `notFound()` when the project is hidden, 403 when the principal's role there does not
   * hold `permission`; null (no project yet, e.g. async annotations of spans not yet received):
   * the global table decides.
   */
  readonly require: (projectRowid: number | null, permission: Permission, notFound: () => Error) => void;
};

const EVERYTHING: Omit<ProjectAccess, 'require'> = { hidden: [], grants: [], standing: () => OPEN };

const withRequire = (principal: Principal | null, access: Omit<ProjectAccess, 'require'>): ProjectAccess => ({
  ...access,
  require: (projectRowid, permission, notFound) => {
    const verdict = onProject(principal, permission, projectRowid === null ? OPEN : access.standing(projectRowid));
    if (verdict === 'hidden') throw notFound();
    if (verdict === 'denied') {
      const global = authorize(principal, permission);
      if (!global.allowed) throw new HttpError(global.status, global.code, global.message);
      throw new HttpError(403, 'project_role_forbidden', 'Your role on this project does not allow this action.');
    }
  },
});

export const loadProjectAccess = async (db: CommonQueryMethods, principal: Principal | null): Promise<ProjectAccess> => {
  if (principal === null || principal.kind === 'anonymous' || seesEveryProject(principal)) return withRequire(principal, EVERYTHING);
  const rows = await restrictedProjectsFor(db, principal.userId);
  const byRowid = new Map(rows.map((r) => [r.id, r.role] as const));
  return withRequire(principal, {
    hidden: rows.filter((r) => r.role === null).map((r) => r.id),
    grants: [...new Set(rows.flatMap((r) => (r.role === null ? [] : [r.role])))],
    standing: (rowid) => (byRowid.has(rowid) ? { restricted: true, grant: byRowid.get(rowid) ?? null } : OPEN),
  });
};

/** This request's ProjectAccess, loaded on first use (the route guard sets the loader). */
export const projectAccessOf = (ctx: Koa.Context): Promise<ProjectAccess> => {
  const load = ctx.state.projectAccess as (() => Promise<ProjectAccess>) | undefined;
  if (load === undefined) throw new Error('projectAccessOf: the route guard has not run');
  return load();
};
