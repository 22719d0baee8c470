import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { findProjectById } from '../../../projections/projects/projectQueries.ts';
import {
  findTraceRetentionPolicy,
  lastTraceRetentionRun,
  listTraceRetentionPolicies,
  projectTraceRetentionPolicyId,
} from '../../../projections/retention/traceRetentionPolicyQueries.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { checkFirst, connectionOf, type Connection } from '../relay.ts';
import { Requires } from '../requires.ts';
import { traceRetentionPolicyOf, traceRetentionRunOf } from '../retentionMappers.ts';
import { projectOf } from '../tracingMappers.ts';
import {
  DefaultTraceRetentionPolicy,
  ProjectTraceRetentionPolicy,
  ProjectTraceRetentionPolicyConnection,
} from '../types/retentionTypes.ts';
import { Project, ProjectConnection } from '../types/tracingTypes.ts';

@Resolver()
export class RetentionQueryResolver {
  @Query(() => ProjectTraceRetentionPolicyConnection, { description: 'Every named trace retention policy, by name' })
  @Requires('read')
  async projectTraceRetentionPolicies(
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int, { defaultValue: 100 }) first: number,
  ): Promise<Connection<ProjectTraceRetentionPolicy>> {
    const limit = checkFirst(first);
    const rows = await listTraceRetentionPolicies(ctx.deps.pool);
    return connectionOf(rows.slice(0, limit + 1), limit, 'ProjectTraceRetentionPolicy', traceRetentionPolicyOf);
  }

  @Query(() => DefaultTraceRetentionPolicy, { description: 'The policy of every project without a named one' })
  @Requires('read')
  async defaultTraceRetentionPolicy(@Ctx() ctx: GraphqlContext): Promise<DefaultTraceRetentionPolicy> {
    const days = ctx.deps.retention?.defaultDays ?? 0;
    return { maxDays: days > 0 ? days : null, lastRun: traceRetentionRunOf(await lastTraceRetentionRun(ctx.deps.pool, 'default')) };
  }
}

@Resolver(() => ProjectTraceRetentionPolicy)
export class TraceRetentionPolicyResolver {
  @FieldResolver(() => ProjectConnection, { description: 'The projects that have this policy, by name' })
  async projects(@Root() policy: ProjectTraceRetentionPolicy, @Ctx() ctx: GraphqlContext) {
    const rows = [];
    // A restricted project the caller has no grant on is not among them.
    for (const rowid of policy.projectRowids.filter((r) => !ctx.access.hidden.includes(r))) {
      const row = await findProjectById(ctx.deps.pool, rowid);
      if (row !== null) rows.push(row);
    }
    return connectionOf(rows, rows.length, 'Project', projectOf);
  }
}

@Resolver(() => Project)
export class ProjectRetentionResolver {
  @FieldResolver(() => ProjectTraceRetentionPolicy, { nullable: true, description: 'Its named trace retention policy; null: the default' })
  async traceRetentionPolicy(@Root() project: Project, @Ctx() ctx: GraphqlContext): Promise<ProjectTraceRetentionPolicy | null> {
    const row = await findProjectById(ctx.deps.pool, project.rowid);
    const policyId = row === null ? null : await projectTraceRetentionPolicyId(ctx.deps.pool, row.project_id);
    const policy = policyId === null ? null : await findTraceRetentionPolicy(ctx.deps.pool, policyId);
    return policy === null ? null : traceRetentionPolicyOf(policy);
  }
}
