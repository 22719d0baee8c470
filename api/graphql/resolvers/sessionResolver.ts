import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { sessionTracesPage } from '../../../projections/tracing/graphQueries.ts';
import { sessionTurns } from '../../../projections/tracing/sessionQueries.ts';
import { sessionUser } from '../../../projections/tracing/traceUserQueries.ts';
import { isoMicros } from '../dateTimeScalar.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { checkFirst, connectionOf, emptyConnection, parseAfter, type Connection } from '../relay.ts';
import { ioValue, projectOf, traceOf } from '../tracingMappers.ts';
import { Project, ProjectSession, SessionTurn, Trace, TraceConnection } from '../types/tracingTypes.ts';

@Resolver(() => ProjectSession)
export class SessionResolver {
  @FieldResolver(() => Project)
  async project(@Root() session: ProjectSession, @Ctx() ctx: GraphqlContext): Promise<Project> {
    return projectOf((await ctx.loaders.project.load(session.projectRowid))!);
  }

  @FieldResolver(() => TraceConnection, { description: 'The session’s traces by start time (first ≤ 1000)' })
  async traces(
    @Root() session: ProjectSession,
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
  ): Promise<Connection<Trace>> {
    const limit = checkFirst(first);
    const from = parseAfter(after, 'Trace');
    if (from.kind === 'end') return emptyConnection();
    const rows = await sessionTracesPage(ctx.deps.pool, session.rowid, { fromRowid: from.kind === 'from' ? from.rowid : null, limit });
    return connectionOf(rows, limit, 'Trace', traceOf, from.kind === 'from');
  }

  @FieldResolver(() => String, {
    nullable: true,
    description: 'The user of the traced app its spans name (`user.id`), from its earliest trace naming one',
  })
  async userId(@Root() session: ProjectSession, @Ctx() ctx: GraphqlContext): Promise<string | null> {
    return sessionUser(ctx.deps.pool, session.rowid);
  }

  @FieldResolver(() => [SessionTurn], { description: 'Each trace’s root-span input and output, by start time' })
  async turns(@Root() session: ProjectSession, @Ctx() ctx: GraphqlContext): Promise<SessionTurn[]> {
    const rows = await sessionTurns(ctx.deps.pool, session.rowid);
    return rows.map((t) => ({
      traceId: t.trace_id,
      startTime: isoMicros(t.start_us),
      endTime: isoMicros(t.end_us),
      input: ioValue(t.input, t.input_mime_type),
      output: ioValue(t.output, t.output_mime_type),
    }));
  }
}

@Resolver(() => SessionTurn)
export class SessionTurnResolver {
  @FieldResolver(() => Trace)
  async trace(@Root() turn: SessionTurn, @Ctx() ctx: GraphqlContext): Promise<Trace> {
    return traceOf((await ctx.loaders.traceByOtelId.load(turn.traceId))!);
  }
}
