import { listTraceUsers, type TraceUserRow } from '../../../projections/tracing/traceUserQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { z } from 'zod';
import { costJson, costSchema } from '../../http/costJson.ts';
import { isoTime, listOf } from '../../http/responseSchemas.ts';
import { isoFromMicros } from '../../http/pythonIsoTime.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { resolveProject } from '../projects/resolveProject.ts';

/** One user of the app (its spans' `user.id`) with the sums over its traces. */
const traceUserJson = (u: TraceUserRow) => ({
  user_id: u.user_id,
  trace_count: u.trace_count,
  session_count: u.session_count,
  error_count: u.error_count,
  token_count_prompt: u.token_count_prompt,
  token_count_completion: u.token_count_completion,
  token_count_total: u.token_count_prompt + u.token_count_completion,
  cost: costJson(u),
  first_seen: isoFromMicros(u.first_seen_us),
  last_seen: isoFromMicros(u.last_seen_us),
});

const traceUserSchema = z.object({
  user_id: z.string(),
  trace_count: z.number(),
  session_count: z.number(),
  error_count: z.number(),
  token_count_prompt: z.number(),
  token_count_completion: z.number(),
  token_count_total: z.number(),
  cost: costSchema,
  first_seen: isoTime,
  last_seen: isoTime,
});

/**
 * `GET /v1/projects/{project_identifier}/users`: the people using the traced app (not Loupe's
 * accounts), as Langfuse's Users view lists them. Loupe's own; a read like the project's traces.
 */
export const traceUserRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/projects/:project_identifier/users',
      responses: { 200: listOf(traceUserSchema) },
      handler: async ({ requireProject, params }) => {
        const project = await resolveProject(deps.pool, params.project_identifier, requireProject);
        return { data: (await listTraceUsers(deps.pool, project.id)).map(traceUserJson) };
      },
    }),
  ];
};
