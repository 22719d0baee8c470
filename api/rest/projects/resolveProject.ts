import type { CommonQueryMethods } from 'slonik';
import { findProjectById, findProjectByName, type ProjectRow } from '../../../projections/projects/projectQueries.ts';
import { HttpError } from '../../http/httpError.ts';
import { rowidOf } from '../../http/globalId.ts';

/**
 * `{project_identifier}`: a Project GlobalID, else a project name (docs/reference/rest-facts.md §0.3). Unknown →
 * 404 naming what was looked for.
 */
export const resolveProject = async (db: CommonQueryMethods, identifier: string): Promise<ProjectRow> => {
  const rowid = rowidOf('Project', identifier);
  const project = rowid !== null ? await findProjectById(db, rowid) : await findProjectByName(db, identifier);
  if (project === null) {
    throw new HttpError(
      404,
      'project_not_found',
      rowid !== null ? `Project with ID ${identifier} not found` : `Project with name ${identifier} not found`,
    );
  }
  return project;
};
