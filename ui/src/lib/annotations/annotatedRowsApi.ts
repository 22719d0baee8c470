import { gql } from '../api/graphql.ts';
import type { Page, PageInfo, RootSpanRow, SpanRow } from '../tracing/tracingTypes.ts';
import { apiAnnotationFilter, type AnnotationFilterState } from './annotationFilter.ts';

type Connection<T> = { edges: { node: T }[]; pageInfo: PageInfo };
const IO_PREVIEW = `{ truncatedValue mimeType }`;

const ANNOTATED_TRACES = `
  query AnnotatedTraces($id: ID!, $first: Int!, $after: String, $annotation: AnnotationFilter!) {
    node(id: $id) {
      ... on Project {
        annotatedTraces(first: $first, after: $after, annotation: $annotation) {
          edges { node {
            traceId startTime latencyMs numSpans tokenCountTotal
            rootSpan { spanId name spanKind statusCode input ${IO_PREVIEW} output ${IO_PREVIEW} }
          } }
          pageInfo { hasNextPage endCursor }
        }
      }
    }
  }`;

type TraceNode = {
  traceId: string;
  startTime: string;
  latencyMs: number;
  numSpans: number;
  tokenCountTotal: number;
  rootSpan: Pick<RootSpanRow, 'spanId' | 'name' | 'spanKind' | 'statusCode' | 'input' | 'output'> | null;
};

/** The Traces tab under an annotation filter: traces annotated (on the trace or any span) as asked, newest first. */
export const fetchAnnotatedTraces = async (
  args: { projectId: string; first: number; after: string | null; annotation: AnnotationFilterState },
  signal?: AbortSignal,
): Promise<Page<RootSpanRow>> => {
  const reply = await gql<{ node: { annotatedTraces: Connection<TraceNode> } }>(
    ANNOTATED_TRACES,
    { id: args.projectId, first: args.first, after: args.after, annotation: apiAnnotationFilter(args.annotation) },
    signal,
  );
  const c = reply.node.annotatedTraces;
  return {
    pageInfo: c.pageInfo,
    rows: c.edges.map(({ node: t }) => ({
      traceId: t.traceId,
      spanId: t.rootSpan?.spanId ?? null,
      name: t.rootSpan?.name ?? '(no root span)',
      spanKind: t.rootSpan?.spanKind ?? 'unknown',
      statusCode: t.rootSpan?.statusCode ?? 'UNSET',
      startTime: t.startTime,
      latencyMs: t.latencyMs,
      input: t.rootSpan?.input ?? null,
      output: t.rootSpan?.output ?? null,
      tokenCountTotal: t.tokenCountTotal,
      numSpans: t.numSpans,
    })),
  };
};

const ANNOTATED_SPANS = `
  query AnnotatedSpans($id: ID!, $first: Int!, $after: String, $annotation: AnnotationFilter!) {
    node(id: $id) {
      ... on Project {
        annotatedSpans(first: $first, after: $after, annotation: $annotation) {
          edges { node {
            id spanId parentId name spanKind statusCode startTime latencyMs tokenCountTotal
            input ${IO_PREVIEW} output ${IO_PREVIEW} context { traceId }
          } }
          pageInfo { hasNextPage endCursor }
        }
      }
    }
  }`;

/** The Spans tab under an annotation filter. */
export const fetchAnnotatedSpans = async (
  args: { projectId: string; first: number; after: string | null; annotation: AnnotationFilterState },
  signal?: AbortSignal,
): Promise<Page<SpanRow>> => {
  type Node = Omit<SpanRow, 'traceId'> & { context: { traceId: string } };
  const reply = await gql<{ node: { annotatedSpans: Connection<Node> } }>(
    ANNOTATED_SPANS,
    { id: args.projectId, first: args.first, after: args.after, annotation: apiAnnotationFilter(args.annotation) },
    signal,
  );
  const c = reply.node.annotatedSpans;
  return { pageInfo: c.pageInfo, rows: c.edges.map(({ node: { context, ...span } }) => ({ ...span, traceId: context.traceId })) };
};
