import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { NOTE_NAME } from '../../../domain/annotations/annotationRecord.ts';
import { listAnnotationConfigs } from '../../../projections/annotations/annotationConfigQueries.ts';
import {
  spansWithAnnotation,
  tracesWithAnnotation,
  type AnnotationMatch,
} from '../../../projections/annotations/annotationFilterQueries.ts';
import { annotationSummaries } from '../../../projections/annotations/annotationSummaryQueries.ts';
import { annotationConfigOf, annotationOf, annotationsOf } from '../annotationMappers.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { checkFirst, connectionOf, emptyConnection, parseAfter, type Connection } from '../relay.ts';
import { spanOf, traceOf } from '../tracingMappers.ts';
import { Requires } from '../requires.ts';
import { QUERY_ROWS } from '../queryLimits.ts';
import { Annotation, AnnotationConfig, AnnotationFilter, AnnotationSummary } from '../types/annotationTypes.ts';
import { Project, ProjectSession, Span, SpanConnection, Trace, TraceConnection } from '../types/tracingTypes.ts';

type Which = 'annotations' | 'notes' | 'all';
const pick = (rows: Awaited<ReturnType<typeof annotationsOf>>, which: Which): Annotation[] =>
  rows.filter((r) => which === 'all' || (which === 'notes') === (r.name === NOTE_NAME)).map(annotationOf);

@Resolver(() => Span)
export class SpanAnnotationResolver {
  @FieldResolver(() => [Annotation], { description: 'Annotations on this span (notes not included), oldest first' })
  async spanAnnotations(@Root() span: Span, @Ctx() ctx: GraphqlContext): Promise<Annotation[]> {
    return pick(await annotationsOf(ctx, 'span', span.spanId), 'annotations');
  }

  @FieldResolver(() => [Annotation], { description: 'Notes on this span, oldest first' })
  async spanNotes(@Root() span: Span, @Ctx() ctx: GraphqlContext): Promise<Annotation[]> {
    return pick(await annotationsOf(ctx, 'span', span.spanId), 'notes');
  }

  @FieldResolver(() => [Annotation], { description: 'Annotations on the retrieved documents of this span, by position' })
  async documentAnnotations(@Root() span: Span, @Ctx() ctx: GraphqlContext): Promise<Annotation[]> {
    return pick(await annotationsOf(ctx, 'document', span.spanId), 'all').sort(
      (a, b) => (a.documentPosition ?? 0) - (b.documentPosition ?? 0),
    );
  }
}

@Resolver(() => Trace)
export class TraceAnnotationResolver {
  @FieldResolver(() => [Annotation], { description: 'Annotations on this trace (notes not included), oldest first' })
  async traceAnnotations(@Root() trace: Trace, @Ctx() ctx: GraphqlContext): Promise<Annotation[]> {
    return pick(await annotationsOf(ctx, 'trace', trace.traceId), 'annotations');
  }

  @FieldResolver(() => [Annotation], { description: 'Notes on this trace, oldest first' })
  async traceNotes(@Root() trace: Trace, @Ctx() ctx: GraphqlContext): Promise<Annotation[]> {
    return pick(await annotationsOf(ctx, 'trace', trace.traceId), 'notes');
  }
}

@Resolver(() => ProjectSession)
export class SessionAnnotationResolver {
  @FieldResolver(() => [Annotation], { description: 'Annotations on this session (notes not included), oldest first' })
  async sessionAnnotations(@Root() session: ProjectSession, @Ctx() ctx: GraphqlContext): Promise<Annotation[]> {
    return pick(await annotationsOf(ctx, 'session', session.sessionId), 'annotations');
  }

  @FieldResolver(() => [Annotation], { description: 'Notes on this session, oldest first' })
  async sessionNotes(@Root() session: ProjectSession, @Ctx() ctx: GraphqlContext): Promise<Annotation[]> {
    return pick(await annotationsOf(ctx, 'session', session.sessionId), 'notes');
  }
}

const matchOf = (f: AnnotationFilter): AnnotationMatch => {
  if (f.name.includes('\u0000') || (f.labels ?? []).some((l) => l.includes('\u0000')))
    throw gqlError('invalid_input', 'Argument "annotation": must not contain NUL characters');
  if (f.minScore != null && f.maxScore != null && f.minScore > f.maxScore)
    throw gqlError('invalid_input', 'Argument "annotation.minScore": must not be above maxScore');
  return {
    name: f.name,
    ...(f.labels != null ? { labels: f.labels } : {}),
    ...(f.minScore != null ? { minScore: f.minScore } : {}),
    ...(f.maxScore != null ? { maxScore: f.maxScore } : {}),
  };
};

/**
 * The page's rows loaded in full; a row deleted since the ids were read is left out (the cursor
 * still continues after it), never a null node.
 */
const loadedPage = async <R>(
  rows: readonly { readonly id: number }[],
  limit: number,
  load: (ids: number[]) => Promise<(R | null | Error)[]>,
) => {
  const full = await load(rows.slice(0, limit).map((r) => r.id));
  const kept = rows.slice(0, limit).flatMap((r, i) => {
    const row = full[i];
    return row === null || row === undefined || row instanceof Error ? [] : [{ id: r.id, row: row as R | null }];
  });
  return { rows: [...kept, ...rows.slice(limit).map((r) => ({ id: r.id, row: null as R | null }))], limit: kept.length };
};

const projectUuid = async (project: Project, ctx: GraphqlContext): Promise<string | null> =>
  (await ctx.loaders.project.load(project.rowid))?.project_id ?? null;

@Resolver(() => Project)
export class ProjectAnnotationResolver {
  @FieldResolver(() => [AnnotationSummary], {
    description: 'Per name over the span annotations of this project',
    complexity: QUERY_ROWS,
  })
  async spanAnnotationSummaries(@Root() project: Project, @Ctx() ctx: GraphqlContext): Promise<AnnotationSummary[]> {
    const id = await projectUuid(project, ctx);
    return id === null ? [] : [...(await annotationSummaries(ctx.deps.pool, id, 'span'))].map((s) => ({ ...s, labels: [...s.labels] }));
  }

  @FieldResolver(() => [AnnotationSummary], {
    description: 'Per name over the trace annotations of this project',
    complexity: QUERY_ROWS,
  })
  async traceAnnotationSummaries(@Root() project: Project, @Ctx() ctx: GraphqlContext): Promise<AnnotationSummary[]> {
    const id = await projectUuid(project, ctx);
    return id === null ? [] : [...(await annotationSummaries(ctx.deps.pool, id, 'trace'))].map((s) => ({ ...s, labels: [...s.labels] }));
  }

  @FieldResolver(() => [AnnotationSummary], {
    description: 'Per name over the session annotations of this project',
    complexity: QUERY_ROWS,
  })
  async sessionAnnotationSummaries(@Root() project: Project, @Ctx() ctx: GraphqlContext): Promise<AnnotationSummary[]> {
    const id = await projectUuid(project, ctx);
    return id === null ? [] : [...(await annotationSummaries(ctx.deps.pool, id, 'session'))].map((s) => ({ ...s, labels: [...s.labels] }));
  }

  @FieldResolver(() => TraceConnection, {
    description:
      'Traces carrying a matching annotation on the trace or on any of its spans, newest row first (the traces table’s annotation filter)',
  })
  async annotatedTraces(
    @Root() project: Project,
    @Ctx() ctx: GraphqlContext,
    @Arg('annotation', () => AnnotationFilter) annotation: AnnotationFilter,
    @Arg('first', () => Int) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
  ): Promise<Connection<Trace>> {
    const limit = checkFirst(first);
    const from = parseAfter(after, 'Trace');
    if (from.kind === 'end') return emptyConnection();
    const rows = await tracesWithAnnotation(ctx.deps.pool, {
      projectRowid: project.rowid,
      match: matchOf(annotation),
      cursor: from.kind === 'from' ? from.rowid : null,
      limit,
    });
    const page = await loadedPage(rows, limit, (ids) => ctx.loaders.trace.loadMany(ids));
    return connectionOf(page.rows, page.limit, 'Trace', (r) => traceOf(r.row!), from.kind === 'from');
  }

  @FieldResolver(() => SpanConnection, {
    description: 'Spans carrying a matching annotation, newest row first (the spans table’s annotation filter)',
  })
  async annotatedSpans(
    @Root() project: Project,
    @Ctx() ctx: GraphqlContext,
    @Arg('annotation', () => AnnotationFilter) annotation: AnnotationFilter,
    @Arg('first', () => Int) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
  ): Promise<Connection<Span>> {
    const limit = checkFirst(first);
    const from = parseAfter(after, 'Span');
    if (from.kind === 'end') return emptyConnection();
    const rows = await spansWithAnnotation(ctx.deps.pool, {
      projectRowid: project.rowid,
      match: matchOf(annotation),
      cursor: from.kind === 'from' ? from.rowid : null,
      limit,
    });
    const page = await loadedPage(rows, limit, (ids) => ctx.loaders.span.loadMany(ids));
    return connectionOf(page.rows, page.limit, 'Span', (r) => spanOf(r.row!, project.rowid), from.kind === 'from');
  }

  @FieldResolver(() => [AnnotationConfig], { description: 'The annotation configs assigned to this project, newest first' })
  async annotationConfigs(@Root() project: Project, @Ctx() ctx: GraphqlContext): Promise<AnnotationConfig[]> {
    const id = await projectUuid(project, ctx);
    return id === null
      ? []
      : (await listAnnotationConfigs(ctx.deps.pool, { cursor: null, limit: 1000, projectId: id })).slice(0, 1000).map(annotationConfigOf);
  }
}

@Resolver()
export class AnnotationQueryResolver {
  @Query(() => [AnnotationConfig], { description: 'Every annotation config, newest first (there are few)' })
  @Requires('read')
  async annotationConfigs(
    @Ctx() ctx: GraphqlContext,
    @Arg('nameContains', () => String, { nullable: true }) nameContains?: string | null,
  ): Promise<AnnotationConfig[]> {
    const rows = (await listAnnotationConfigs(ctx.deps.pool, { cursor: null, limit: 10_000 })).slice(0, 10_000);
    const needle = nameContains?.toLowerCase() ?? '';
    return rows.filter((r) => r.name.toLowerCase().includes(needle)).map(annotationConfigOf);
  }
}
