import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { isoFromNanosZ } from '../dateTimeScalar.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { messagePreview } from '../messagePreview.ts';
import { nestAttributes } from '../nestAttributes.ts';
import { ioValue, projectOf, traceOf } from '../tracingMappers.ts';
import { Project, Span, type SpanDetails, SpanEvent, SpanIOValue, Trace } from '../types/tracingTypes.ts';

/** Attributes and events: on the span already, or loaded with those of the other spans of the page. */
const detailsOf = async (span: Span, ctx: GraphqlContext): Promise<SpanDetails> => {
  if (span.details !== null) return span.details;
  const row = await ctx.loaders.span.load(span.rowid);
  return row === null ? { attributes: {}, events: [] } : { attributes: row.attributes as Record<string, unknown>, events: row.events };
};

@Resolver(() => Span)
export class SpanResolver {
  @FieldResolver(() => String, { description: 'The attributes as a JSON document, nested like Phoenix’s (flat dotted keys unflattened)' })
  async attributes(@Root() span: Span, @Ctx() ctx: GraphqlContext): Promise<string> {
    return JSON.stringify(nestAttributes((await detailsOf(span, ctx)).attributes));
  }

  @FieldResolver(() => SpanIOValue, { nullable: true })
  async input(@Root() span: Span, @Ctx() ctx: GraphqlContext): Promise<SpanIOValue | null> {
    const a = (await detailsOf(span, ctx)).attributes;
    const io = ioValue(a['input.value'], a['input.mime_type']);
    return io === null ? null : { ...io, preview: messagePreview(a, 'input') };
  }

  @FieldResolver(() => SpanIOValue, { nullable: true })
  async output(@Root() span: Span, @Ctx() ctx: GraphqlContext): Promise<SpanIOValue | null> {
    const a = (await detailsOf(span, ctx)).attributes;
    // A tool-calling LLM span may have no output.value: its tool calls are its output.
    const preview = messagePreview(a, 'output');
    const io = ioValue(a['output.value'] ?? (preview === null ? undefined : preview), a['output.mime_type']);
    return io === null ? null : { ...io, preview };
  }

  @FieldResolver(() => String, { nullable: true, description: 'The user of the traced app this span names (`user.id`), if any' })
  async userId(@Root() span: Span, @Ctx() ctx: GraphqlContext): Promise<string | null> {
    const id = (await detailsOf(span, ctx)).attributes['user.id'];
    return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
  }

  @FieldResolver(() => [SpanEvent])
  async events(@Root() span: Span, @Ctx() ctx: GraphqlContext): Promise<SpanEvent[]> {
    return (await detailsOf(span, ctx)).events.map((e) => ({
      name: e.name,
      message: typeof e.attributes['exception.message'] === 'string' ? (e.attributes['exception.message'] as string) : '',
      timestamp: isoFromNanosZ(e.time_unix_nano),
      attributes: e.attributes,
    }));
  }

  @FieldResolver(() => Trace)
  async trace(@Root() span: Span, @Ctx() ctx: GraphqlContext): Promise<Trace> {
    return traceOf((await ctx.loaders.traceByOtelId.load(span.context.traceId))!);
  }

  @FieldResolver(() => Project)
  async project(@Root() span: Span, @Ctx() ctx: GraphqlContext): Promise<Project> {
    return projectOf((await ctx.loaders.project.load(span.projectRowid))!);
  }

  @FieldResolver(() => Int, { description: 'Direct children' })
  async numChildSpans(@Root() span: Span, @Ctx() ctx: GraphqlContext): Promise<number> {
    const traceRowid = span.traceRowid ?? (await ctx.loaders.traceByOtelId.load(span.context.traceId))?.id;
    return traceRowid === undefined ? 0 : ctx.loaders.childCount.load({ traceRowid, spanId: span.spanId });
  }
}
