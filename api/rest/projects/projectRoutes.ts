import { z } from 'zod';
import { isEventOf } from '../../../domain/loupeEvent.ts';
import {
  createProject,
  deleteProject,
  revokeProjectGrant,
  setProjectGrant,
  updateProject,
} from '../../../domain/projects/projectCommands.ts';
import { listProjectGrants, type ProjectGrantRow } from '../../../projections/projects/projectAccessQueries.ts';
import { findUser, findUsers, type UserRow } from '../../../projections/identity/userQueries.ts';
import { fromGlobalId, toGlobalId } from '../../http/globalId.ts';
import { findProjectByProjectId, listProjects } from '../../../projections/projects/projectQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { HttpError } from '../../http/httpError.ts';
import { refusedAt } from '../../http/httpErrorOf.ts';
import { byRowid, cursorOf, page } from '../../http/page.ts';
import { boolParam, limitParam, single } from '../../http/queryParams.ts';
import { withoutNul } from '../../http/rejectNulChars.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { projectJson, projectSchema } from './projectJson.ts';
import { resolveProject } from './resolveProject.ts';
import { NO_CONTENT } from '../../http/answer.ts';
import { dataOf, listOf, pageOf, isoTime } from '../../http/responseSchemas.ts';

/** The project as the read model shows it once this process has applied the command. */
const projectAfter = async (deps: AppDeps, projectId: string) => {
  const project = await findProjectByProjectId(deps.pool, projectId);
  if (project === null) throw new HttpError(404, 'project_not_found', 'Project not found');
  return project;
};

const listQuery = z.object({
  cursor: single,
  limit: limitParam(100),
  include_experiment_projects: boolParam(false),
  // Server-side evaluators (and their projects) do not exist; the flag is accepted so clients can send it.
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
/**
 * Phoenix updates only the description (null = leave it); Loupe also takes the gradient colours
 * and `restricted` (issue 38: only admins, system keys and the project's grantees see it).
 */
const updateBody = z.object({
  description: text.nullable().optional(),
  gradient_start_color: color,
  gradient_end_color: color,
  restricted: z.boolean().optional(),
});

const grantBody = z.object({ role: z.string().max(64) });

/** `{user_id}`: a User GlobalID (as the users routes take it) or the user's id; unknown → 404. */
const grantee = async (deps: AppDeps, raw: string) => {
  const userId = fromGlobalId('User', raw) ?? raw;
  const user = await findUser(deps.pool, userId);
  if (user === null) throw new HttpError(404, 'user_not_found', `User ${raw} not found`);
  return user;
};

const grantSchema = z.object({
  user_id: z.string(),
  username: z.string().nullable(),
  email: z.string().nullable(),
  role: z.string(),
  granted_at: isoTime,
});

const grantJson = (g: ProjectGrantRow, users: ReadonlyMap<string, UserRow>) => ({
  user_id: toGlobalId('User', g.user_id),
  username: users.get(g.user_id)?.username ?? null,
  email: users.get(g.user_id)?.email ?? null,
  role: g.role,
  granted_at: g.granted_at,
});

export const projectRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/projects',
      query: listQuery,
      responses: { 200: pageOf(projectSchema) },
      handler: async ({ query, access }) => {
        const rows = await listProjects(deps.pool, {
          hidden: (await access()).hidden,
          cursor: cursorOf(query.cursor),
          limit: query.limit,
          nameContains: query.name_contains ?? null,
          includeExperimentProjects: query.include_experiment_projects,
        });
        return page(rows, query.limit, byRowid('Project'), projectJson);
      },
    }),

    route({
      method: 'POST',
      path: '/v1/projects',
      body: createBody,
      responses: { 200: dataOf(projectSchema) },
      handler: async ({ body, command, context }) => {
        const result = await command(() =>
          createProject(
            deps.store,
            {
              name: body.name,
              description: body.description ?? null,
              gradientStartColor: body.gradient_start_color,
              gradientEndColor: body.gradient_end_color,
            },
            context,
          ),
        );
        const created = result.events.find((e) => isEventOf(e, ['ProjectCreated']));
        return { data: projectJson(await projectAfter(deps, created!.data.projectId)) };
      },
    }),

    route({
      method: 'GET',
      path: '/v1/projects/:project_identifier',
      responses: { 200: dataOf(projectSchema) },
      handler: async ({ requireProject, params }) => ({
        data: projectJson(await resolveProject(deps.pool, params.project_identifier!, requireProject)),
      }),
    }),

    route({
      method: 'PUT',
      path: '/v1/projects/:project_identifier',
      body: updateBody,
      responses: { 200: dataOf(projectSchema) },
      handler: async ({ requireProject, params, body, command, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        await command(() =>
          updateProject(
            deps.store,
            project.name,
            {
              projectId: project.project_id,
              description: body.description ?? undefined,
              gradientStartColor: body.gradient_start_color,
              gradientEndColor: body.gradient_end_color,
              restricted: body.restricted,
            },
            context,
          ),
        );
        return { data: projectJson(await projectAfter(deps, project.project_id)) };
      },
    }),

    route({
      method: 'GET',
      path: '/v1/projects/:project_identifier/grants',
      responses: { 200: listOf(grantSchema) },
      handler: async ({ params, requireProject }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        const grants = await listProjectGrants(deps.pool, project.id);
        const users = await findUsers(
          deps.pool,
          grants.map((g) => g.user_id),
        );
        return { data: grants.map((g) => grantJson(g, users)) };
      },
    }),

    route({
      method: 'PUT',
      path: '/v1/projects/:project_identifier/grants/:user_id',
      body: grantBody,
      responses: { 200: dataOf(grantSchema.nullable()) },
      handler: async ({ params, body, command, requireProject, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        const user = await grantee(deps, params.user_id!);
        await command(() =>
          setProjectGrant(deps.store, project.name, { projectId: project.project_id, userId: user.userId, role: body.role }, context).catch(
            (error: unknown) => {
              throw refusedAt('body.role: ', error);
            },
          ),
        );
        const grant = (await listProjectGrants(deps.pool, project.id)).find((g) => g.user_id === user.userId);
        return { data: grant === undefined ? null : grantJson(grant, new Map([[user.userId, user]])) };
      },
    }),

    route({
      method: 'DELETE',
      path: '/v1/projects/:project_identifier/grants/:user_id',
      responses: { 204: NO_CONTENT },
      handler: async ({ params, command, requireProject, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        const userId = fromGlobalId('User', params.user_id!) ?? params.user_id!;
        await command(() => revokeProjectGrant(deps.store, project.name, { projectId: project.project_id, userId }, context));
      },
    }),

    route({
      method: 'DELETE',
      path: '/v1/projects/:project_identifier',
      responses: { 204: NO_CONTENT },
      handler: async ({ requireProject, params, command, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        await command(() =>
          deleteProject(
            deps.store,
            project.name,
            { projectId: project.project_id, defaultProjectName: deps.settings.defaultProjectName },
            context,
          ),
        );
      },
    }),
  ];
};
