import { z } from 'zod';
import type { ProjectEvaluatorSettings } from '../../../domain/evaluators/events.ts';
import { FilterError } from '../../../domain/filters/filterSyntax.ts';
import { isEventOf } from '../../../domain/loupeEvent.ts';
import {
  findEvaluator,
  findProjectEvaluator,
  listProjectEvaluators,
  type ProjectEvaluatorRow,
} from '../../../projections/evaluators/evaluatorQueries.ts';
import { filterConditions } from '../../../projections/filters/filterConditions.ts';
import type { AppDeps } from '../../appDeps.ts';
import { globalIdOf } from '../../http/globalId.ts';
import { HttpError } from '../../http/httpError.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { resolveProject } from '../projects/resolveProject.ts';
import { changeWithFields } from './evaluatorRoutes.ts';
import {
  backfillBody,
  patchedSettings,
  projectEvaluatorBody,
  projectEvaluatorJson,
  projectEvaluatorPatch,
  settingsFromJson,
  projectEvaluatorSchema,
  settingsOfRow,
} from './projectEvaluatorJson.ts';
import { resolveEvaluatorField, resolveProjectEvaluator } from './resolveEvaluator.ts';
import { dataOf, listOf } from '../../http/responseSchemas.ts';

/** The filter must compile for its target (names and types, not only syntax): a 422 naming `body.filter` otherwise. */
const checkFilter = (settings: ProjectEvaluatorSettings) => {
  if (settings.filter.trim() === '') return;
  try {
    filterConditions(settings.target === 'SPAN' ? 'span' : settings.target === 'TRACE' ? 'trace' : 'session', { filter: settings.filter });
  } catch (error) {
    if (error instanceof FilterError) throw new HttpError(422, 'invalid_filter', `body.filter: ${error.message}`);
    throw error;
  }
};

/** `/v1/projects/{id}/evaluators`: an evaluator judging a project's live traffic, and backfills. */
export const projectEvaluatorRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  const render = async (row: ProjectEvaluatorRow, projectRowid: number) => {
    const evaluator = await findEvaluator(deps.pool, { id: row.evaluator_id });
    return projectEvaluatorJson(row, evaluator ?? { kind: 'CODE', name: '' }, globalIdOf('Project', projectRowid));
  };
  const after = async (id: number) => {
    const row = await findProjectEvaluator(deps.pool, id);
    if (row === null) throw new HttpError(404, 'project_evaluator_not_found', `Project evaluator ${id} not found`);
    return row;
  };
  return [
    route({
      method: 'GET',
      path: '/v1/projects/:project_identifier/evaluators',
      responses: { 200: listOf(projectEvaluatorSchema) },
      handler: async ({ params, requireProject }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        const rows = await listProjectEvaluators(deps.pool, project.project_id);
        return { data: await Promise.all(rows.map((r) => render(r, project.id))) };
      },
    }),

    route({
      method: 'POST',
      path: '/v1/projects/:project_identifier/evaluators',
      body: projectEvaluatorBody,
      responses: { 200: dataOf(projectEvaluatorSchema) },
      handler: async ({ params, body, command, requireProject, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        const evaluator = await resolveEvaluatorField(deps.pool, body.evaluator_id, 'body.evaluator_id');
        const settings = settingsFromJson(body);
        checkFilter(settings);
        const { events } = await command(() =>
          changeWithFields(context, deps, {
            type: 'AttachProjectEvaluator',
            evaluatorId: evaluator.id,
            projectId: project.project_id,
            settings,
          }),
        );
        const attached = events.find((e) => isEventOf(e, ['ProjectEvaluatorAttached']))!;
        return { data: await render(await after(attached.data.attachmentId), project.id) };
      },
    }),

    route({
      method: 'GET',
      path: '/v1/projects/:project_identifier/evaluators/:project_evaluator_id',
      responses: { 200: dataOf(projectEvaluatorSchema) },
      handler: async ({ params, requireProject }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        return {
          data: await render(await resolveProjectEvaluator(deps.pool, project.project_id, params.project_evaluator_id!), project.id),
        };
      },
    }),

    route({
      method: 'PATCH',
      path: '/v1/projects/:project_identifier/evaluators/:project_evaluator_id',
      body: projectEvaluatorPatch,
      responses: { 200: dataOf(projectEvaluatorSchema) },
      handler: async ({ params, body, command, requireProject, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        const existing = await resolveProjectEvaluator(deps.pool, project.project_id, params.project_evaluator_id!);
        const settings = patchedSettings(settingsOfRow(existing), body);
        checkFilter(settings);
        await command(() => changeWithFields(context, deps, { type: 'ChangeProjectEvaluator', attachmentId: existing.id, settings }));
        return { data: await render(await after(existing.id), project.id) };
      },
    }),

    route({
      method: 'DELETE',
      path: '/v1/projects/:project_identifier/evaluators/:project_evaluator_id',
      responses: { 200: dataOf(projectEvaluatorSchema) },
      handler: async ({ params, command, requireProject, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        const existing = await resolveProjectEvaluator(deps.pool, project.project_id, params.project_evaluator_id!);
        const shown = await render(existing, project.id);
        await command(() => changeWithFields(context, deps, { type: 'DetachProjectEvaluator', attachmentId: existing.id }));
        return { data: shown };
      },
    }),

    route({
      method: 'POST',
      path: '/v1/projects/:project_identifier/evaluators/:project_evaluator_id/backfill',
      body: backfillBody,
      responses: {
        202: dataOf(
          z.object({
            project_evaluator_id: z.string(),
            start_time: z.string().nullable().optional(),
            end_time: z.string().nullable().optional(),
          }),
        ),
      },
      handler: async ({ params, body, command, requireProject, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        const existing = await resolveProjectEvaluator(deps.pool, project.project_id, params.project_evaluator_id!);
        await command(() =>
          changeWithFields(context, deps, {
            type: 'BackfillProjectEvaluator',
            attachmentId: existing.id,
            startTime: body.start_time,
            endTime: body.end_time,
          }),
        );
        return {
          data: { project_evaluator_id: globalIdOf('ProjectEvaluator', existing.id), start_time: body.start_time, end_time: body.end_time },
        };
      },
    }),
  ];
};
