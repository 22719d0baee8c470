import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { GRANT_ROLES } from '../../domain/access/grantRole.ts';

const restrictedRow = z.object({
  id: z.bigint().transform(Number),
  // A role this version does not know (a crafted event) grants nothing.
  role: z
    .string()
    .nullable()
    .transform((r) => ((GRANT_ROLES as readonly (string | null)[]).includes(r) ? (r as (typeof GRANT_ROLES)[number]) : null)),
});

export type RestrictedProjectRow = z.infer<typeof restrictedRow>;

/**
 * Every restricted project with the user's grant there (null: none). Read on every request that
 * touches a project, so that restricting a project or revoking a grant holds from the next
 * request on, on every process: it reads the few rows of the partial index `projects_restricted`
 * and the user's grants, never the spans.
 */
export const restrictedProjectsFor = (db: CommonQueryMethods, userId: string): Promise<readonly RestrictedProjectRow[]> =>
  db.any(sql.type(restrictedRow)`
    SELECT p.id, g.role FROM projects p
    LEFT JOIN project_grants g ON g.project_id = p.id AND g.user_id = ${userId}
    WHERE p.restricted`);

const grantRow = z.object({ user_id: z.string(), role: z.string(), granted_at: z.string() });
export type ProjectGrantRow = z.infer<typeof grantRow>;

/** A project's grants, by user id. */
export const listProjectGrants = (db: CommonQueryMethods, projectRowid: number): Promise<readonly ProjectGrantRow[]> =>
  db.any(sql.type(grantRow)`
    SELECT user_id, role, to_char(granted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') AS granted_at
    FROM project_grants WHERE project_id = ${projectRowid} ORDER BY user_id`);

/** `AND <column> <> ALL(hidden)`, or nothing when nothing is hidden (the plan stays as it was). */
export const visibleProjects = (column: string, hidden: readonly number[]) =>
  hidden.length === 0 ? sql.fragment`true` : sql.fragment`${sql.identifier(column.split('.'))} <> ALL(${sql.array([...hidden], 'int8')})`;
