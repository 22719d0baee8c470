import { Arg, Ctx, FieldResolver, Float, ID, Int, Resolver, Root } from 'type-graphql';
import type { JsonScalar } from '../../../domain/base/jsonValue.ts';
import { boundedQuery } from '../../../projections/filters/boundedQuery.ts';
import { filterConditions } from '../../../projections/filters/filterConditions.ts';
import { listTracesWithRootFilter } from '../../../projections/tracing/filteredTraceQueries.ts';
import { sessionIdsInRange } from '../../../projections/tracing/sessionRangeQueries.ts';
import { sessionIdsInProject } from '../../../projections/tracing/sessionQueries.ts';
import { listSpansSorted } from '../../../projections/tracing/sortedSpanQueries.ts';
import { listSpans, type SpanFilter as SpanListFilter } from '../../../projections/tracing/spanQueries.ts';
import { listTraces } from '../../../projections/tracing/traceQueries.ts';
import { fromGlobalId } from '../../http/globalId.ts';
import { isoMicros } from '../dateTimeScalar.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { QUERY_ROWS } from '../queryLimits.ts';
import { checkFirst, connectionOf, emptyConnection, parseAfter, type Connection } from '../relay.ts';
import { costOf, sessionOf, spanOf, traceOf } from '../tracingMappers.ts';
import {
  Project,
  type ProjectSession,
  ProjectSessionConnection,
  ProjectSessionSort,
  ProjectSummary,
  SortDir,
  type Span,
  SpanConnection,
  SpanFilter,
  SpanSort,
  sortColumnOf,
  TimeRange,
  Trace,
  TraceConnection,
  TraceSort,
} from '../types/tracingTypes.ts';

const FILTER_CONDITION_DOC =
  "The filter language, as Phoenix writes it: span_kind == 'LLM' and latency_ms > 5000, 'refund' in input.value, annotations['correctness'].label == 'incorrect'";
const SEARCH_DOC = 'Full-text search over span names, inputs and outputs (words, "a phrase", or, -word)';

const windowOf = (range: TimeRange | null | undefined) => ({ start: range?.start ?? null, end: range?.end ?? null });

/** REST's attribute filter value rule: JSON when it parses to a scalar, else the text itself. */
const attributeValue = (key: string, raw: string): JsonScalar => {
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // a plain string
  }
  if (value === null || typeof value === 'object') {
    throw gqlError(
      'invalid_filter',
      `Argument "filter.attributes" (${key}): the value must be a string, number or boolean, not null, a list or an object`,
    );
  }
  return value as JsonScalar;
};

/** The rows of a page with their full trace rows, in the page's order (one batched lookup). */
const fullTraces = async (ctx: GraphqlContext, ids: readonly number[]) => {
  const rows = await ctx.loaders.trace.loadMany(ids);
  return rows.map((r, i) => {
    if (r instanceof Error) throw r;
    if (r === null) throw gqlError('trace_not_found', `Trace ${ids[i]} vanished while reading`, 404);
    return r;
  });
};

@Resolver(() => Project)
export class ProjectResolver {
  @FieldResolver(() => ProjectSummary, {
    description: 'Counts, latency, tokens and errors over a time range (traces by start time)',
    complexity: QUERY_ROWS,
  })
  async summary(
    @Root() project: Project,
    @Ctx() ctx: GraphqlContext,
    @Arg('timeRange', () => TimeRange, { nullable: true }) timeRange?: TimeRange | null,
  ): Promise<ProjectSummary> {
    const s = await ctx.loaders.projectSummary.load({ projectRowid: project.rowid, window: windowOf(timeRange) });
    return {
      traceCount: s.trace_count,
      spanCount: s.span_count,
      latencyMsP50: s.latency_p50_ms,
      latencyMsP99: s.latency_p99_ms,
      tokenCountPrompt: s.token_count_prompt,
      tokenCountCompletion: s.token_count_completion,
      tokenCountTotal: s.token_count_prompt + s.token_count_completion,
      errorRate: s.trace_count === 0 ? 0 : s.traces_with_error / s.trace_count,
      cost: costOf(s),
      lastActivityAt: s.last_activity_us === null ? null : isoMicros(s.last_activity_us),
    };
  }

  @FieldResolver(() => Float, {
    nullable: true,
    description: 'A quantile (e.g. 0.5, 0.99) of trace latency over a time range (as in summary)',
    complexity: QUERY_ROWS,
  })
  async latencyMsQuantile(
    @Root() project: Project,
    @Ctx() ctx: GraphqlContext,
    @Arg('probability', () => Float) probability: number,
    @Arg('timeRange', () => TimeRange, { nullable: true }) timeRange?: TimeRange | null,
  ): Promise<number | null> {
    if (!(probability >= 0 && probability <= 1))
      throw gqlError('invalid_probability', `Argument "probability" must be between 0 and 1 (got ${probability})`);
    return ctx.loaders.latencyQuantile.load({ projectRowid: project.rowid, probability, window: windowOf(timeRange) });
  }

  @FieldResolver(() => TraceConnection, {
    description:
      'Traces as REST lists them (same sort, time range and session filter); `filter` keeps the traces whose root span matches it',
  })
  async traces(
    @Root() project: Project,
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
    @Arg('timeRange', () => TimeRange, { nullable: true }) timeRange?: TimeRange | null,
    @Arg('sort', () => TraceSort, { nullable: true }) sort?: TraceSort | null,
    @Arg('sessionIds', () => [String], { nullable: true, description: 'ProjectSession ids or session.id values' }) sessionIds?:
      | string[]
      | null,
    @Arg('filter', () => SpanFilter, { nullable: true, description: 'The span filters, on the root span' }) filter?: SpanFilter | null,
    @Arg('filterCondition', () => String, { nullable: true, description: FILTER_CONDITION_DOC }) filterCondition?: string | null,
    @Arg('search', () => String, { nullable: true, description: SEARCH_DOC }) search?: string | null,
  ): Promise<Connection<Trace>> {
    const conditions = filterConditions('trace', { filter: filterCondition, search });
    const limit = checkFirst(first);
    const from = parseAfter(after, 'Trace');
    if (from.kind === 'end') return emptyConnection();
    let sessions: readonly number[] | undefined;
    if (sessionIds) {
      const rowids = sessionIds.map((s) => fromGlobalId('ProjectSession', s));
      sessions = await sessionIdsInProject(ctx.deps.pool, project.rowid, {
        ids: rowids.filter((r): r is string => r !== null && /^\d{1,15}$/.test(r)).map(Number),
        sessionIds: sessionIds.filter((_, i) => rowids[i] === null),
      });
    }
    const query = {
      projectId: project.rowid,
      sort: sortColumnOf(sort?.col ?? 'startTime'),
      order: sort?.dir ?? 'desc',
      limit,
      cursor: from.kind === 'from' ? from.rowid : null,
      startTime: timeRange?.start ?? undefined,
      endTime: timeRange?.end ?? undefined,
      sessionIds: sessions,
    };
    const rows = await boundedQuery(ctx.deps.pool, conditions, { search }, (db) =>
      filter
        ? listTracesWithRootFilter(
            db,
            {
              ...query,
              rootSpan: {
                traceIds: filter.traceIds?.map((t) => t.toLowerCase()),
                spanIds: filter.spanIds?.map((s) => s.toLowerCase()),
                names: filter.names ?? undefined,
                spanKinds: filter.spanKinds?.map((k) => k.toUpperCase()),
                statusCodes: filter.statusCodes ?? undefined,
                attributes: filter.attributes?.map((a) => ({ key: a.key, value: attributeValue(a.key, a.value) })),
              },
            },
            conditions,
          )
        : listTraces(db, query, conditions),
    );
    const full = await fullTraces(
      ctx,
      rows.slice(0, limit).map((r) => r.id),
    );
    return connectionOf(rows, limit, 'Trace', (_row, i) => traceOf(full[i]!), from.kind === 'from');
  }

  @FieldResolver(() => SpanConnection, { description: 'Spans with the REST span filters, newest row first unless sorted' })
  async spans(
    @Root() project: Project,
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
    @Arg('timeRange', () => TimeRange, { nullable: true }) timeRange?: TimeRange | null,
    @Arg('rootSpansOnly', () => Boolean, { nullable: true }) rootSpansOnly?: boolean | null,
    @Arg('filter', () => SpanFilter, { nullable: true }) filter?: SpanFilter | null,
    @Arg('sort', () => SpanSort, { nullable: true }) sort?: SpanSort | null,
    @Arg('filterCondition', () => String, { nullable: true, description: FILTER_CONDITION_DOC }) filterCondition?: string | null,
    @Arg('search', () => String, { nullable: true, description: SEARCH_DOC }) search?: string | null,
  ): Promise<Connection<Span>> {
    const conditions = filterConditions('span', { filter: filterCondition, search });
    const limit = checkFirst(first);
    const from = parseAfter(after, 'Span');
    if (from.kind === 'end') return emptyConnection();
    const query: SpanListFilter = {
      projectId: project.rowid,
      cursor: from.kind === 'from' ? from.rowid : null,
      limit,
      startTime: timeRange?.start ?? undefined,
      endTime: timeRange?.end ?? undefined,
      traceIds: filter?.traceIds?.map((t) => t.toLowerCase()),
      spanIds: filter?.spanIds?.map((s) => s.toLowerCase()),
      parentId: rootSpansOnly ? null : undefined,
      names: filter?.names ?? undefined,
      spanKinds: filter?.spanKinds?.map((k) => k.toUpperCase()),
      statusCodes: filter?.statusCodes ?? undefined,
      attributes: filter?.attributes?.map((a) => ({ key: a.key, value: attributeValue(a.key, a.value) })),
      conditions,
    };
    const rows = await boundedQuery(ctx.deps.pool, conditions, { search }, (db) =>
      sort ? listSpansSorted(db, query, { by: sortColumnOf(sort.col), order: sort.dir }) : listSpans(db, query),
    );
    return connectionOf(rows, limit, 'Span', (r) => spanOf(r, project.rowid), from.kind === 'from');
  }

  @FieldResolver(() => ProjectSessionConnection, {
    description:
      'Sessions by id, oldest first unless dir is desc (as REST), or by `sort` (which then takes the direction); timeRange is on the session start time',
  })
  async sessions(
    @Root() project: Project,
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
    @Arg('dir', () => SortDir, { nullable: true }) dir?: SortDir | null,
    @Arg('timeRange', () => TimeRange, { nullable: true }) timeRange?: TimeRange | null,
    @Arg('filterCondition', () => String, { nullable: true, description: FILTER_CONDITION_DOC }) filterCondition?: string | null,
    @Arg('search', () => String, { nullable: true, description: SEARCH_DOC }) search?: string | null,
    @Arg('sort', () => ProjectSessionSort, { nullable: true }) sort?: ProjectSessionSort | null,
  ): Promise<Connection<ProjectSession>> {
    const conditions = filterConditions('session', { filter: filterCondition, search });
    const limit = checkFirst(first);
    const from = parseAfter(after, 'ProjectSession');
    if (from.kind === 'end') return emptyConnection();
    const ids = await boundedQuery(ctx.deps.pool, conditions, { search }, (db) =>
      sessionIdsInRange(db, {
        projectId: project.rowid,
        cursor: from.kind === 'from' ? from.rowid : null,
        limit,
        order: sort?.dir ?? dir ?? 'asc',
        sort: sort ? sortColumnOf(sort.col) : undefined,
        startTime: timeRange?.start ?? undefined,
        endTime: timeRange?.end ?? undefined,
        conditions,
      }),
    );
    const rows = ids.map((id) => ({ id }));
    const full = await ctx.loaders.session.loadMany(rows.slice(0, limit).map((r) => r.id));
    const byId = new Map(
      full.filter((r) => r !== null && !(r instanceof Error)).map((r) => [(r as { id: number }).id, r as Exclude<typeof r, null | Error>]),
    );
    return connectionOf(rows, limit, 'ProjectSession', (r) => sessionOf(byId.get(r.id)!), from.kind === 'from');
  }

  @FieldResolver(() => Trace, { nullable: true, description: 'A trace of this project by its OpenTelemetry trace id' })
  async trace(@Root() project: Project, @Ctx() ctx: GraphqlContext, @Arg('traceId', () => ID) traceId: string): Promise<Trace | null> {
    const row = await ctx.loaders.traceByOtelId.load(traceId.toLowerCase());
    return row === null || row.project_id !== project.rowid ? null : traceOf(row);
  }
}
