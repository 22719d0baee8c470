import { Arg, Ctx, ID, Int, Query, Resolver } from 'type-graphql';
import { listProjects } from '../../../projections/projects/projectQueries.ts';
import { findProjectByName } from '../../../projections/projects/projectQueries.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { checkFirst, connectionOf, emptyConnection, Node, parseAfter, type Connection } from '../relay.ts';
import { Requires } from '../requires.ts';
import { projectOf, sessionOf, spanOf, traceOf } from '../tracingMappers.ts';
import { Project, ProjectConnection, ProjectSession, Span, Trace } from '../types/tracingTypes.ts';
import { nodeById } from './nodeLookup.ts';

@Resolver()
export class TracingQueryResolver {
  @Query(() => Node, { description: 'Any object by its global id' })
  @Requires('read')
  node(@Ctx() ctx: GraphqlContext, @Arg('id', () => ID) id: string): Promise<Node> {
    return nodeById(ctx, id);
  }

  @Query(() => ProjectConnection, { description: 'Projects, newest first' })
  @Requires('read')
  async projects(
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int, { defaultValue: 50 }) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
    @Arg('nameContains', () => String, { nullable: true }) nameContains?: string | null,
    @Arg('includeExperimentProjects', () => Boolean, {
      defaultValue: false,
      description: "Also list the projects experiments fill (each experiment's own, and the Phoenix client's `evaluators`)",
    })
    includeExperimentProjects?: boolean,
  ): Promise<Connection<Project>> {
    const limit = checkFirst(first);
    const from = parseAfter(after, 'Project');
    if (from.kind === 'end') return emptyConnection();
    const rows = await listProjects(ctx.deps.pool, {
      hidden: ctx.access.hidden,
      cursor: from.kind === 'from' ? from.rowid : null,
      limit,
      nameContains: nameContains ?? null,
      includeExperimentProjects: includeExperimentProjects ?? false,
    });
    return connectionOf(rows, limit, 'Project', projectOf, from.kind === 'from');
  }

  @Query(() => Project, { nullable: true })
  @Requires('read')
  async getProjectByName(@Ctx() ctx: GraphqlContext, @Arg('name', () => String) name: string): Promise<Project | null> {
    const row = await findProjectByName(ctx.deps.pool, name);
    return row === null || ctx.access.hidden.includes(row.id) ? null : projectOf(row);
  }

  @Query(() => Trace, { nullable: true })
  @Requires('read')
  async getTraceByOtelId(@Ctx() ctx: GraphqlContext, @Arg('traceId', () => String) traceId: string): Promise<Trace | null> {
    const row = await ctx.loaders.traceByOtelId.load(traceId.trim().toLowerCase());
    return row === null ? null : traceOf(row);
  }

  @Query(() => Span, { nullable: true })
  @Requires('read')
  async getSpanByOtelId(@Ctx() ctx: GraphqlContext, @Arg('spanId', () => String) spanId: string): Promise<Span | null> {
    const row = await ctx.loaders.spanByOtelId.load(spanId.trim().toLowerCase());
    return row === null ? null : spanOf(row, row.project_id);
  }

  @Query(() => ProjectSession, { nullable: true, description: 'A session by its session.id (session ids are global)' })
  @Requires('read')
  async getProjectSessionById(
    @Ctx() ctx: GraphqlContext,
    @Arg('sessionId', () => String) sessionId: string,
  ): Promise<ProjectSession | null> {
    const row = await ctx.loaders.sessionByOtelId.load(sessionId);
    return row === null ? null : sessionOf(row);
  }
}
