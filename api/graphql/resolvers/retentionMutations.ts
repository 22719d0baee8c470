import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { DomainError } from '../../../domain/errors.ts';
import { changeTraceRetentionPolicies } from '../../../domain/retention/changeTraceRetentionPolicies.ts';
import type { TraceRetentionPolicyCommand } from '../../../domain/retention/commands.ts';
import { findProjectById } from '../../../projections/projects/projectQueries.ts';
import { findTraceRetentionPolicy } from '../../../projections/retention/traceRetentionPolicyQueries.ts';
import { rowidOf } from '../../http/globalId.ts';
import { policyRowidOf } from '../../rest/retention/traceRetentionPolicyJson.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { asGraphqlError, gqlError } from '../graphqlError.ts';
import { Requires } from '../requires.ts';
import { traceRetentionPolicyOf } from '../retentionMappers.ts';
import { projectOf } from '../tracingMappers.ts';
import {
  CreateProjectTraceRetentionPolicyInput,
  DeleteProjectTraceRetentionPolicyInput,
  PatchProjectTraceRetentionPolicyInput,
  type ProjectTraceRetentionPolicy,
  ProjectTraceRetentionPolicyMutationPayload,
} from '../types/retentionTypes.ts';
import { Project } from '../types/tracingTypes.ts';

/** Runs a command and waits for the read models; a rule break (`max_days: ...`) is a 422 naming the input field. */
const run = async (ctx: GraphqlContext, command: TraceRetentionPolicyCommand) => {
  try {
    const result = await changeTraceRetentionPolicies(ctx.deps.store, command, ctx.command);
    await ctx.settle(result.position);
    return result.events;
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'invalid') {
      // The domain names the wire field first (`max_days: ...`); GraphQL's is camel-cased.
      const [, field, rest] = /^([a-z_]+): (.*)$/s.exec(error.message) ?? [null, null, error.message];
      const where = field === null ? 'input' : `input.${field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())}`;
      throw gqlError(error.code, `Argument "${where}": ${rest}`, 422);
    }
    throw asGraphqlError(error);
  }
};

const policyIdOf = async (ctx: GraphqlContext, id: string, argument: string): Promise<number> => {
  const rowid = policyRowidOf(id);
  if (rowid === null || (await findTraceRetentionPolicy(ctx.deps.pool, rowid)) === null)
    throw gqlError('trace_retention_policy_not_found', `Argument "${argument}": no trace retention policy ${id}`, 404);
  return rowid;
};

const projectIdsOf = async (ctx: GraphqlContext, ids: readonly string[] | null | undefined, argument: string): Promise<string[]> => {
  const out: string[] = [];
  for (const [i, id] of (ids ?? []).entries()) {
    const rowid = rowidOf('Project', id);
    const row = rowid === null ? null : await findProjectById(ctx.deps.pool, rowid);
    if (row === null) throw gqlError('project_not_found', `Argument "${argument}[${i}]": no project ${id}`, 404);
    out.push(row.project_id);
  }
  return out;
};

const shown = async (ctx: GraphqlContext, policyId: number): Promise<ProjectTraceRetentionPolicy> => {
  const row = await findTraceRetentionPolicy(ctx.deps.pool, policyId);
  if (row === null) throw gqlError('trace_retention_policy_not_found', `No trace retention policy ${policyId}`, 404);
  return traceRetentionPolicyOf(row);
};

/** The same commands as REST's /v1/trace_retention_policies (Phoenix's mutation names); admins only. */
@Resolver()
export class RetentionMutations {
  @Mutation(() => ProjectTraceRetentionPolicyMutationPayload)
  @Requires('retention.manage')
  async createProjectTraceRetentionPolicy(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => CreateProjectTraceRetentionPolicyInput) input: CreateProjectTraceRetentionPolicyInput,
  ): Promise<ProjectTraceRetentionPolicyMutationPayload> {
    const projects = await projectIdsOf(ctx, input.addProjects, 'input.addProjects');
    const events = await run(ctx, {
      type: 'CreateTraceRetentionPolicy',
      name: input.name,
      rule: { maxDays: input.maxDays ?? null, maxTraces: input.maxTraces ?? null },
    });
    const policyId = (events[0]!.data as { policyId: number }).policyId;
    for (const projectId of projects) await run(ctx, { type: 'SetProjectTraceRetentionPolicy', projectId, policyId });
    return { node: await shown(ctx, policyId) };
  }

  @Mutation(() => ProjectTraceRetentionPolicyMutationPayload, { description: 'Fields left out stay as they are' })
  @Requires('retention.manage')
  async patchProjectTraceRetentionPolicy(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => PatchProjectTraceRetentionPolicyInput) input: PatchProjectTraceRetentionPolicyInput,
  ): Promise<ProjectTraceRetentionPolicyMutationPayload> {
    const policyId = await policyIdOf(ctx, input.id, 'input.id');
    const added = await projectIdsOf(ctx, input.addProjects, 'input.addProjects');
    const removed = await projectIdsOf(ctx, input.removeProjects, 'input.removeProjects');
    await run(ctx, {
      type: 'ChangeTraceRetentionPolicy',
      policyId,
      ...(input.name == null ? {} : { name: input.name }),
      rule: { maxDays: input.maxDays, maxTraces: input.maxTraces },
    });
    for (const projectId of added) await run(ctx, { type: 'SetProjectTraceRetentionPolicy', projectId, policyId });
    for (const projectId of removed) await run(ctx, { type: 'SetProjectTraceRetentionPolicy', projectId, policyId: null });
    return { node: await shown(ctx, policyId) };
  }

  @Mutation(() => ProjectTraceRetentionPolicyMutationPayload, {
    description: 'Its projects go back to the default policy; returns the policy it deleted',
  })
  @Requires('retention.manage')
  async deleteProjectTraceRetentionPolicy(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => DeleteProjectTraceRetentionPolicyInput) input: DeleteProjectTraceRetentionPolicyInput,
  ): Promise<ProjectTraceRetentionPolicyMutationPayload> {
    const policyId = await policyIdOf(ctx, input.id, 'input.id');
    const node = await shown(ctx, policyId);
    await run(ctx, { type: 'DeleteTraceRetentionPolicy', policyId });
    return { node };
  }

  @Mutation(() => Project, { description: 'A project’s trace retention policy: a named one, or null for the default' })
  @Requires('retention.manage')
  async setProjectTraceRetentionPolicy(
    @Ctx() ctx: GraphqlContext,
    @Arg('projectId', () => ID) projectId: string,
    @Arg('policyId', () => ID, { nullable: true }) policyId?: string | null,
  ): Promise<Project> {
    const [project] = await projectIdsOf(ctx, [projectId], 'projectId');
    const policy = policyId == null ? null : await policyIdOf(ctx, policyId, 'policyId');
    await run(ctx, { type: 'SetProjectTraceRetentionPolicy', projectId: project!, policyId: policy });
    return projectOf((await findProjectById(ctx.deps.pool, rowidOf('Project', projectId)!))!);
  }
}
