import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { visibleProjects } from './projectAccessQueries.ts';

const projectRow = z.object({
  id: z.bigint().transform(Number),
  project_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  gradient_start_color: z.string(),
  gradient_end_color: z.string(),
  restricted: z.boolean(),
});

export type ProjectRow = z.infer<typeof projectRow>;

const columns = sql.fragment`id, project_id::text, name, description, gradient_start_color, gradient_end_color, restricted`;

/**
 * The projects experiments fill rather than people: each experiment's own project (its
 * `project_name`), and `evaluators`, where the Phoenix client traces its evaluators, once any
 * experiment exists. The reference hides the first kind from its lists unless asked
 * (`include_experiment_projects`); the evaluators' project clutters the list the same way.
 */
const notAnExperimentProject = sql.fragment`NOT EXISTS (SELECT 1 FROM experiments e WHERE e.project_name = projects.name)
  AND NOT (name = 'evaluators' AND EXISTS (SELECT 1 FROM experiments))`;

/** Newest first, from `cursor` (a row id, inclusive); `limit + 1` rows so the caller sees whether a page follows. */
export const listProjects = (
  db: CommonQueryMethods,
  options: {
    readonly cursor: number | null;
    readonly limit: number;
    readonly nameContains: string | null;
    /** False leaves out the projects experiments fill (see notAnExperimentProject). */
    readonly includeExperimentProjects: boolean;
    /** Restricted projects the caller has no grant on (ProjectAccess.hidden): never listed. */
    readonly hidden?: readonly number[];
  },
): Promise<readonly ProjectRow[]> => {
  const where = [
    sql.fragment`true`,
    ...(options.cursor !== null ? [sql.fragment`id <= ${options.cursor}`] : []),
    ...(options.nameContains ? [sql.fragment`strpos(lower(name), lower(${options.nameContains})) > 0`] : []),
    ...(options.includeExperimentProjects ? [] : [notAnExperimentProject]),
    visibleProjects('id', options.hidden ?? []),
  ];
  return db.any(sql.type(projectRow)`
    SELECT ${columns} FROM projects WHERE ${sql.join(where, sql.fragment` AND `)} ORDER BY id DESC LIMIT ${options.limit + 1}`);
};

export const findProjectById = (db: CommonQueryMethods, id: number): Promise<ProjectRow | null> =>
  db.maybeOne(sql.type(projectRow)`SELECT ${columns} FROM projects WHERE id = ${id}`);

/** The projects of these row ids (GraphQL's batched loads), in no particular order. */
export const projectsByIds = (db: CommonQueryMethods, projectRowids: readonly number[]): Promise<readonly ProjectRow[]> =>
  projectRowids.length === 0
    ? Promise.resolve([])
    : db.any(sql.type(projectRow)`SELECT ${columns} FROM projects WHERE id = ANY(${sql.array([...projectRowids], 'int8')})`);

export const findProjectByName = (db: CommonQueryMethods, name: string): Promise<ProjectRow | null> =>
  db.maybeOne(sql.type(projectRow)`SELECT ${columns} FROM projects WHERE name = ${name}`);

/** The project an event-side id (uuid) names, if it is still there. */
export const findProjectByProjectId = (db: CommonQueryMethods, projectId: string): Promise<ProjectRow | null> =>
  db.maybeOne(sql.type(projectRow)`SELECT ${columns} FROM projects WHERE project_id = ${projectId}`);
