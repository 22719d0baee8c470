import { changeTraceRetentionPolicies } from '../../../domain/retention/changeTraceRetentionPolicies.ts';
import type { TraceRetentionPolicyCommand } from '../../../domain/retention/commands.ts';
import { isEventOf } from '../../../domain/loupeEvent.ts';
import {
  findTraceRetentionPolicy,
  lastTraceRetentionRun,
  listTraceRetentionPolicies,
  projectTraceRetentionPolicyId,
} from '../../../projections/retention/traceRetentionPolicyQueries.ts';
import type { ProjectRow } from '../../../projections/projects/projectQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { globalIdOf } from '../../http/globalId.ts';
import { HttpError } from '../../http/httpError.ts';
import { refusedAt } from '../../http/httpErrorOf.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { resolveProject } from '../projects/resolveProject.ts';
import { resolveTraceRetentionPolicy } from './resolveTraceRetentionPolicy.ts';
import {
  assignPolicyBody,
  createPolicyBody,
  patchPolicyBody,
  policyRowidOf,
  projectPolicySchema,
  defaultPolicySchema,
  traceRetentionPolicySchema,
  traceRetentionPolicyJson,
  traceRetentionRunJson,
} from './traceRetentionPolicyJson.ts';
import type { CommandContext } from '../../../domain/handleCommand.ts';
import { NO_CONTENT } from '../../http/answer.ts';
import { dataOf, pageOf } from '../../http/responseSchemas.ts';

/** Runs a policy command; a rule the domain refuses (`max_days: ...`, `name: ...`) is a 422 naming `body.<field>`. */
const change = async (context: CommandContext, deps: AppDeps, command: TraceRetentionPolicyCommand) => {
  try {
    return await changeTraceRetentionPolicies(deps.store, command, context);
  } catch (error) {
    throw refusedAt('body.', error);
  }
};

const policyAfter = async (deps: AppDeps, policyId: number) => {
  const policy = await findTraceRetentionPolicy(deps.pool, policyId);
  if (policy === null) throw new HttpError(404, 'trace_retention_policy_not_found', `Trace retention policy ${policyId} not found`);
  return traceRetentionPolicyJson(policy);
};

/** The default policy as the server runs it: `SERVICE_DEFAULT_RETENTION_POLICY_DAYS` (0: keep for ever) and its last run. */
const defaultPolicyJson = async (deps: AppDeps) => {
  const days = deps.retention?.defaultDays ?? 0;
  return {
    name: 'Default',
    max_days: days > 0 ? days : null,
    max_traces: null,
    last_run: traceRetentionRunJson(await lastTraceRetentionRun(deps.pool, 'default')),
  };
};

/** A project's policy: its named one, or the default (`policy_id: null`). */
const projectPolicyJson = async (deps: AppDeps, project: ProjectRow) => {
  const policyId = await projectTraceRetentionPolicyId(deps.pool, project.project_id);
  const policy = policyId === null ? null : await findTraceRetentionPolicy(deps.pool, policyId);
  return {
    project_id: globalIdOf('Project', project.id),
    project_name: project.name,
    policy_id: policy === null ? null : globalIdOf('ProjectTraceRetentionPolicy', policy.id),
    policy: policy === null ? await defaultPolicyJson(deps) : traceRetentionPolicyJson(policy),
  };
};

/**
 * Named trace retention policies (Phoenix has them in GraphQL only; these REST routes are
 * Loupe's): listed and read by everyone, created, changed, deleted and assigned by admins
 * (`retention.manage`). A project without a named policy has the default.
 */
export const traceRetentionPolicyRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/trace_retention_policies',
      responses: { 200: pageOf(traceRetentionPolicySchema).extend({ default_policy: defaultPolicySchema }) },
      handler: async ({ access }) => {
        const { hidden } = await access();
        return {
          data: (await listTraceRetentionPolicies(deps.pool)).map((p) => traceRetentionPolicyJson(p, hidden)),
          next_cursor: null,
          default_policy: await defaultPolicyJson(deps),
        };
      },
    }),

    route({
      method: 'POST',
      path: '/v1/trace_retention_policies',
      body: createPolicyBody,
      responses: { 201: dataOf(traceRetentionPolicySchema) },
      handler: async ({ body, command, context }) => {
        const { events } = await command(() =>
          change(context, deps, {
            type: 'CreateTraceRetentionPolicy',
            name: body.name,
            rule: { maxDays: body.max_days ?? null, maxTraces: body.max_traces ?? null },
          }),
        );
        const created = events.find((e) => isEventOf(e, ['TraceRetentionPolicyCreated']))!;
        return { data: await policyAfter(deps, created.data.policyId) };
      },
    }),

    route({
      method: 'GET',
      path: '/v1/trace_retention_policies/:policy_id',
      responses: { 200: dataOf(traceRetentionPolicySchema) },
      handler: async ({ params, access }) => ({
        data: traceRetentionPolicyJson(await resolveTraceRetentionPolicy(deps.pool, params.policy_id!), (await access()).hidden),
      }),
    }),

    route({
      method: 'PATCH',
      path: '/v1/trace_retention_policies/:policy_id',
      body: patchPolicyBody,
      responses: { 200: dataOf(traceRetentionPolicySchema) },
      handler: async ({ params, body, command, context }) => {
        const policy = await resolveTraceRetentionPolicy(deps.pool, params.policy_id!);
        await command(() =>
          change(context, deps, {
            type: 'ChangeTraceRetentionPolicy',
            policyId: policy.id,
            ...(body.name === undefined ? {} : { name: body.name }),
            rule: { maxDays: body.max_days, maxTraces: body.max_traces },
          }),
        );
        return { data: await policyAfter(deps, policy.id) };
      },
    }),

    route({
      method: 'DELETE',
      path: '/v1/trace_retention_policies/:policy_id',
      responses: { 204: NO_CONTENT },
      handler: async ({ params, command, context }) => {
        const policy = await resolveTraceRetentionPolicy(deps.pool, params.policy_id!);
        await command(() => change(context, deps, { type: 'DeleteTraceRetentionPolicy', policyId: policy.id }));
      },
    }),

    route({
      method: 'GET',
      path: '/v1/projects/:project_identifier/trace_retention_policy',
      responses: { 200: dataOf(projectPolicySchema) },
      handler: async ({ requireProject, params }) => ({
        data: await projectPolicyJson(deps, await resolveProject(deps.pool, params.project_identifier!, requireProject)),
      }),
    }),

    route({
      method: 'PUT',
      path: '/v1/projects/:project_identifier/trace_retention_policy',
      body: assignPolicyBody,
      responses: { 200: dataOf(projectPolicySchema) },
      handler: async ({ requireProject, params, body, command, context }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        let policyId: number | null = null;
        if (body.policy_id !== null) {
          policyId = policyRowidOf(body.policy_id);
          if (policyId === null || (await findTraceRetentionPolicy(deps.pool, policyId)) === null)
            throw new HttpError(
              422,
              'trace_retention_policy_not_found',
              `body.policy_id: no trace retention policy has the id "${body.policy_id}"`,
            );
        }
        await command(() => change(context, deps, { type: 'SetProjectTraceRetentionPolicy', projectId: project.project_id, policyId }));
        return { data: await projectPolicyJson(deps, project) };
      },
    }),
  ];
};
