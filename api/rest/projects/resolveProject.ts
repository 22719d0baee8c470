import type { CommonQueryMethods } from 'slonik';
import { findProjectById, findProjectByName, type ProjectRow } from '../../../projections/projects/projectQueries.ts';
import { HttpError } from '../../http/httpError.ts';
import { rowidOf } from '../../http/globalId.ts';
import type { RequireProject } from '../../http/restRoute.ts';

/**
 * `{project_identifier}`: a Project GlobalID, else a project name (docs/reference/rest-facts.md §0.3). Unknown →
 * 404 saying which kind of identifier was looked for. A restricted project the caller has no grant on answers the
 * same 404 (it does not exist for them); one whose grant does not hold the route's permission, 403.
 */
export const resolveProject = async (db: CommonQueryMethods, identifier: string, requireProject: RequireProject): Promise<ProjectRow> => {
  const rowid = rowidOf('Project', identifier);
  // The same words whether the project is missing or hidden, and without echoing the name: an
  // answer never names a project the caller may not see.
  const notFound = () =>
    new HttpError(404, 'project_not_found', rowid !== null ? 'No project you can see has this ID' : 'No project you can see has this name');
  const project = rowid !== null ? await findProjectById(db, rowid) : await findProjectByName(db, identifier);
  if (project === null) throw notFound();
  await requireProject(project.id, notFound);
  return project;
};
