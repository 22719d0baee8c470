import type { CommonQueryMethods } from 'slonik';
import {
  findEvaluator,
  findProjectEvaluator,
  type EvaluatorRow,
  type ProjectEvaluatorRow,
} from '../../../projections/evaluators/evaluatorQueries.ts';
import { HttpError } from '../../http/httpError.ts';
import { evaluatorRowidOf } from './evaluatorJson.ts';
import { projectEvaluatorRowidOf } from './projectEvaluatorJson.ts';

/** `{evaluator_id}` in a path: an evaluator GlobalID (any kind) or its name; 404 otherwise. */
export const resolveEvaluator = async (db: CommonQueryMethods, raw: string): Promise<EvaluatorRow> => {
  const rowid = evaluatorRowidOf(raw);
  const row = rowid !== null ? await findEvaluator(db, { id: rowid }) : await findEvaluator(db, { name: raw });
  if (row === null) throw new HttpError(404, 'evaluator_not_found', `Evaluator ${raw} not found`);
  return row;
};

/** An evaluator named in a body (`field`): unknown is a 422 naming the field. */
export const resolveEvaluatorField = async (db: CommonQueryMethods, raw: string, field: string): Promise<EvaluatorRow> => {
  const rowid = evaluatorRowidOf(raw);
  const row = rowid !== null ? await findEvaluator(db, { id: rowid }) : await findEvaluator(db, { name: raw });
  if (row === null) throw new HttpError(422, 'evaluator_not_found', `${field}: no evaluator has the id or name "${raw}"`);
  return row;
};

/** `{project_evaluator_id}` of a project: 404 when it is not one of that project's. */
export const resolveProjectEvaluator = async (db: CommonQueryMethods, projectId: string, raw: string): Promise<ProjectEvaluatorRow> => {
  const rowid = projectEvaluatorRowidOf(raw);
  const row = rowid === null ? null : await findProjectEvaluator(db, rowid);
  if (row === null || row.project_id !== projectId)
    throw new HttpError(404, 'project_evaluator_not_found', `Project evaluator ${raw} not found`);
  return row;
};
