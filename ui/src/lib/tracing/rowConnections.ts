import { gql } from '../api/graphql.ts';
import type { Page, PageInfo, RootSpanRow, SpanRow } from './tracingTypes.ts';

/**
 * What the Traces and Spans tabs ask of each row, and how a reply becomes their rows. The plain
 * lists (tracingApi) and the annotation-filtered ones (annotatedRowsApi) query different fields of
 * the project but must give the tables the same rows, so both take them from here.
 */

export type Connection<T> = { edges: { node: T }[]; pageInfo: PageInfo };

export const pageOf = <T, R>(connection: Connection<T>, map: (node: T) => R): Page<R> => ({
  rows: connection.edges.map((edge) => map(edge.node)),
  pageInfo: connection.pageInfo,
});

export const IO_PREVIEW = `{ truncatedValue mimeType preview }`;

/** A trace as the Traces tab lists it: its root span stands for it. */
export const TRACE_ROW_FIELDS = `
            traceId startTime latencyMs numSpans tokenCountTotal cost { total }
            rootSpan { spanId name spanKind statusCode userId input ${IO_PREVIEW} output ${IO_PREVIEW} }`;

export type TraceRowNode = {
  traceId: string;
  startTime: string;
  latencyMs: number;
  numSpans: number;
  tokenCountTotal: number;
  cost: { total: number } | null;
  rootSpan: Pick<RootSpanRow, 'spanId' | 'name' | 'spanKind' | 'statusCode' | 'userId' | 'input' | 'output'> | null;
};

/** A trace whose root span hasn't arrived yet still gets a row, named so. */
export const rootSpanRowOf = (t: TraceRowNode): RootSpanRow => ({
  traceId: t.traceId,
  spanId: t.rootSpan?.spanId ?? null,
  name: t.rootSpan?.name ?? '(no root span)',
  spanKind: t.rootSpan?.spanKind ?? 'unknown',
  statusCode: t.rootSpan?.statusCode ?? 'UNSET',
  startTime: t.startTime,
  latencyMs: t.latencyMs,
  input: t.rootSpan?.input ?? null,
  output: t.rootSpan?.output ?? null,
  userId: t.rootSpan?.userId ?? null,
  tokenCountTotal: t.tokenCountTotal,
  cost: t.cost,
  numSpans: t.numSpans,
});

/** A span as the Spans tab lists it. */
export const SPAN_ROW_FIELDS = `
            id spanId parentId name spanKind statusCode userId startTime latencyMs tokenCountTotal cost { total }
            input ${IO_PREVIEW} output ${IO_PREVIEW} context { traceId }`;

export type SpanRowNode = Omit<SpanRow, 'traceId'> & { context: { traceId: string } };

export const spanRowOf = ({ context, ...span }: SpanRowNode): SpanRow => ({ ...span, traceId: context.traceId });

/** Runs a query that names the project's connection of traces `rows` (`rows: traces(…)`), for the Traces tab. */
export const fetchRootSpanRows = async (
  query: string,
  variables: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Page<RootSpanRow>> =>
  pageOf((await gql<{ node: { rows: Connection<TraceRowNode> } }>(query, variables, signal)).node.rows, rootSpanRowOf);

/** Runs a query that names the project's connection of spans `rows` (`rows: spans(…)`), for the Spans tab. */
export const fetchSpanRows = async (query: string, variables: Record<string, unknown>, signal?: AbortSignal): Promise<Page<SpanRow>> =>
  pageOf((await gql<{ node: { rows: Connection<SpanRowNode> } }>(query, variables, signal)).node.rows, spanRowOf);
