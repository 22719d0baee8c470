import type Koa from 'koa';
import { z } from 'zod';
import { createProject, deleteProject, updateProject } from '../../../domain/projects/projectCommands.ts';
import type { ProjectCreated } from '../../../domain/projects/events.ts';
import { findProjectByProjectId, listProjects } from '../../../projections/projects/projectQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { commandContextOf } from '../../http/commandContextOf.ts';
import { HttpError } from '../../http/httpError.ts';
import { parseBody, parseQuery } from '../../http/parseBody.ts';
import type { RouteDef } from '../../http/route.ts';
import { settle } from '../../http/settle.ts';
import { projectJson } from './projectJson.ts';
import { boolParam, limitParam, single } from '../common/queryParams.ts';
import { withoutNul } from '../common/rejectNulChars.ts';
import { resolveProject } from '../common/resolveProject.ts';
import { tracingRoute } from '../tracing/tracingRoute.ts';
import { cursorOf, page } from '../tracing/tracingIds.ts';

const identifier = (ctx: Koa.Context): string => String(ctx.params.project_identifier);

/** The project as the read model shows it once this process has applied the command. */
const projectAfter = async (deps: AppDeps, projectId: string) => {
  const project = await findProjectByProjectId(deps.pool, projectId);
  if (project === null) throw new HttpError(404, 'project_not_found', 'Project not found');
  return project;
};

const listQuery = z.object({
  cursor: single,
  limit: limitParam(100),
  // Experiment and evaluator projects do not exist yet; the flags are accepted so clients can send them.
  include_experiment_projects: boolParam(false),
  include_dataset_evaluator_projects: boolParam(false),
  name_contains: single,
});

const text = z.string().refine(withoutNul, 'must not contain NUL characters');
const color = z.string().optional();
const createBody = z.object({
  name: text.pipe(z.string().min(1)),
  description: text.nullable().optional(),
  gradient_start_color: color,
  gradient_end_color: color,
});
/** Phoenix updates only the description (null = leave it); Loupe also takes the gradient colours. */
const updateBody = z.object({
  description: text.nullable().optional(),
  gradient_start_color: color,
  gradient_end_color: color,
});

export const projectRoutes = (deps: AppDeps): RouteDef[] => [
  tracingRoute('GET', '/v1/projects', async (ctx) => {
    const q = parseQuery(ctx, listQuery);
    const rows = await listProjects(deps.pool, { cursor: cursorOf(q.cursor), limit: q.limit, nameContains: q.name_contains ?? null });
    ctx.body = page(rows, q.limit, 'Project', projectJson);
  }),

  tracingRoute('POST', '/v1/projects', async (ctx) => {
    const body = parseBody(ctx, createBody);
    const result = await createProject(
      deps.store,
      {
        name: body.name,
        description: body.description ?? null,
        gradientStartColor: body.gradient_start_color,
        gradientEndColor: body.gradient_end_color,
      },
      commandContextOf(ctx),
    );
    await settle(deps.runner, result.position);
    ctx.body = { data: projectJson(await projectAfter(deps, (result.events[0] as ProjectCreated).data.projectId)) };
  }),

  tracingRoute('GET', '/v1/projects/:project_identifier', async (ctx) => {
    ctx.body = { data: projectJson(await resolveProject(deps.pool, identifier(ctx))) };
  }),

  tracingRoute('PUT', '/v1/projects/:project_identifier', async (ctx) => {
    const project = await resolveProject(deps.pool, identifier(ctx));
    const body = parseBody(ctx, updateBody);
    const result = await updateProject(
      deps.store,
      project.name,
      {
        projectId: project.project_id,
        description: body.description ?? undefined,
        gradientStartColor: body.gradient_start_color,
        gradientEndColor: body.gradient_end_color,
      },
      commandContextOf(ctx),
    );
    await settle(deps.runner, result.position);
    ctx.body = { data: projectJson(await projectAfter(deps, project.project_id)) };
  }),

  tracingRoute('DELETE', '/v1/projects/:project_identifier', async (ctx) => {
    const project = await resolveProject(deps.pool, identifier(ctx));
    const result = await deleteProject(
      deps.store,
      project.name,
      { projectId: project.project_id, defaultProjectName: deps.settings.defaultProjectName },
      commandContextOf(ctx),
    );
    await settle(deps.runner, result.position);
    ctx.status = 204;
  }),
];
