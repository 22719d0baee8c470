import { gql } from '../api/graphql.ts';
import {
  type Connection,
  pageOf,
  rootSpanRowOf,
  SPAN_ROW_FIELDS,
  type SpanRowNode,
  spanRowOf,
  TRACE_ROW_FIELDS,
  type TraceRowNode,
} from '../tracing/rowConnections.ts';
import type { Page, RootSpanRow, SpanRow } from '../tracing/tracingTypes.ts';
import { apiAnnotationFilter, type AnnotationFilterState } from './annotationFilter.ts';

const ANNOTATED_TRACES = `
  query AnnotatedTraces($id: ID!, $first: Int!, $after: String, $annotation: AnnotationFilter!) {
    node(id: $id) {
      ... on Project {
        annotatedTraces(first: $first, after: $after, annotation: $annotation) {
          edges { node { ${TRACE_ROW_FIELDS} } }
          pageInfo { hasNextPage endCursor }
        }
      }
    }
  }`;

/** The Traces tab under an annotation filter: traces annotated (on the trace or any span) as asked, newest first. */
export const fetchAnnotatedTraces = async (
  args: { projectId: string; first: number; after: string | null; annotation: AnnotationFilterState },
  signal?: AbortSignal,
): Promise<Page<RootSpanRow>> => {
  const reply = await gql<{ node: { annotatedTraces: Connection<TraceRowNode> } }>(
    ANNOTATED_TRACES,
    { id: args.projectId, first: args.first, after: args.after, annotation: apiAnnotationFilter(args.annotation) },
    signal,
  );
  return pageOf(reply.node.annotatedTraces, rootSpanRowOf);
};

const ANNOTATED_SPANS = `
  query AnnotatedSpans($id: ID!, $first: Int!, $after: String, $annotation: AnnotationFilter!) {
    node(id: $id) {
      ... on Project {
        annotatedSpans(first: $first, after: $after, annotation: $annotation) {
          edges { node { ${SPAN_ROW_FIELDS} } }
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
  const reply = await gql<{ node: { annotatedSpans: Connection<SpanRowNode> } }>(
    ANNOTATED_SPANS,
    { id: args.projectId, first: args.first, after: args.after, annotation: apiAnnotationFilter(args.annotation) },
    signal,
  );
  return pageOf(reply.node.annotatedSpans, spanRowOf);
};
