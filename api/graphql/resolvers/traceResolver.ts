import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { traceSpansPage } from '../../../projections/tracing/graphQueries.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { checkFirst, connectionOf, emptyConnection, parseAfter, type Connection } from '../relay.ts';
import { projectOf, sessionOf, spanOf } from '../tracingMappers.ts';
import { Project, ProjectSession, Span, SpanConnection, Trace } from '../types/tracingTypes.ts';

@Resolver(() => Trace)
export class TraceResolver {
  @FieldResolver(() => Project)
  async project(@Root() trace: Trace, @Ctx() ctx: GraphqlContext): Promise<Project> {
    return projectOf((await ctx.loaders.project.load(trace.projectRowid))!);
  }

  @FieldResolver(() => ProjectSession, { nullable: true })
  async session(@Root() trace: Trace, @Ctx() ctx: GraphqlContext): Promise<ProjectSession | null> {
    if (trace.sessionRowid === null) return null;
    const row = await ctx.loaders.session.load(trace.sessionRowid);
    return row === null ? null : sessionOf(row);
  }

  @FieldResolver(() => Span, { nullable: true, description: 'The earliest span without a parent' })
  async rootSpan(@Root() trace: Trace, @Ctx() ctx: GraphqlContext): Promise<Span | null> {
    if (trace.rootSpanId === null) return null;
    const row = await ctx.loaders.rootSpan.load(trace.rowid);
    return row === null ? null : spanOf(row, row.project_id);
  }

  @FieldResolver(() => SpanConnection, { description: 'All spans of the trace in arrival order, a page at a time (first ≤ 1000)' })
  async spans(
    @Root() trace: Trace,
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
    @Arg('rootSpansOnly', () => Boolean, { nullable: true }) rootSpansOnly?: boolean | null,
  ): Promise<Connection<Span>> {
    const limit = checkFirst(first);
    const from = parseAfter(after, 'Span');
    if (from.kind === 'end') return emptyConnection();
    const rows = await traceSpansPage(
      ctx.deps.pool,
      { id: trace.rowid, traceId: trace.traceId, projectRowid: trace.projectRowid },
      {
        fromRowid: from.kind === 'from' ? from.rowid : null,
        limit,
        rootsOnly: rootSpansOnly === true,
      },
    );
    return connectionOf(rows, limit, 'Span', (r) => spanOf(r, r.project_id), from.kind === 'from');
  }
}
