import { fetchRootSpanRows, fetchSpanRows, SPAN_ROW_FIELDS, TRACE_ROW_FIELDS } from '../tracing/rowConnections.ts';
import type { Page, RootSpanRow, SpanRow } from '../tracing/tracingTypes.ts';
import { apiAnnotationFilter, type AnnotationFilterState } from './annotationFilter.ts';

const ANNOTATED_TRACES = `
  query AnnotatedTraces($id: ID!, $first: Int!, $after: String, $annotation: AnnotationFilter!) {
    node(id: $id) {
      ... on Project {
        rows: annotatedTraces(first: $first, after: $after, annotation: $annotation) {
          edges { node { ${TRACE_ROW_FIELDS} } }
          pageInfo { hasNextPage endCursor }
        }
      }
    }
  }`;

/** The Traces tab under an annotation filter: traces annotated (on the trace or any span) as asked, newest first. */
export const fetchAnnotatedTraces = (
  args: { projectId: string; first: number; after: string | null; annotation: AnnotationFilterState },
  signal?: AbortSignal,
): Promise<Page<RootSpanRow>> =>
  fetchRootSpanRows(
    ANNOTATED_TRACES,
    { id: args.projectId, first: args.first, after: args.after, annotation: apiAnnotationFilter(args.annotation) },
    signal,
  );

const ANNOTATED_SPANS = `
  query AnnotatedSpans($id: ID!, $first: Int!, $after: String, $annotation: AnnotationFilter!) {
    node(id: $id) {
      ... on Project {
        rows: annotatedSpans(first: $first, after: $after, annotation: $annotation) {
          edges { node { ${SPAN_ROW_FIELDS} } }
          pageInfo { hasNextPage endCursor }
        }
      }
    }
  }`;

/** The Spans tab under an annotation filter. */
export const fetchAnnotatedSpans = (
  args: { projectId: string; first: number; after: string | null; annotation: AnnotationFilterState },
  signal?: AbortSignal,
): Promise<Page<SpanRow>> =>
  fetchSpanRows(
    ANNOTATED_SPANS,
    { id: args.projectId, first: args.first, after: args.after, annotation: apiAnnotationFilter(args.annotation) },
    signal,
  );
