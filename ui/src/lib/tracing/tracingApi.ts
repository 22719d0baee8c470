import { gql } from '../api/graphql.ts';
import type { TimeRange } from '../time/timeRange.ts';
import {
  type Connection,
  fetchRootSpanRows,
  fetchSpanRows,
  IO_PREVIEW,
  pageOf,
  SPAN_ROW_FIELDS,
  TRACE_ROW_FIELDS,
} from './rowConnections.ts';
import type { SpanFilterState, TraceSortState } from './spanFilters.ts';
import type {
  Page,
  RootSpanRow,
  SessionDetail,
  SessionRow,
  SpanDetail,
  SpanEvent,
  SpanRow,
  TraceSummary,
  TreeSpan,
} from './tracingTypes.ts';

const range = (timeRange: TimeRange) => ({ start: timeRange.start, end: timeRange.end });

/** The filter as the API takes it; null when nothing is filtered. */
export const apiFilterOf = (filter: SpanFilterState) => {
  const out = {
    ...(filter.statusCodes.length ? { statusCodes: filter.statusCodes } : {}),
    ...(filter.spanKinds.length ? { spanKinds: filter.spanKinds } : {}),
    ...(filter.names.length ? { names: filter.names } : {}),
    ...(filter.attributes.length ? { attributes: filter.attributes } : {}),
  };
  return Object.keys(out).length === 0 ? null : out;
};

const ROOT_SPANS_BY_TRACE = `
  query ProjectTraces($id: ID!, $first: Int!, $after: String, $timeRange: TimeRange, $sort: TraceSort, $filter: SpanFilter, $filterCondition: String, $search: String) {
    node(id: $id) {
      ... on Project {
        rows: traces(first: $first, after: $after, timeRange: $timeRange, sort: $sort, filter: $filter, filterCondition: $filterCondition, search: $search) {
          edges { node { ${TRACE_ROW_FIELDS} } }
          pageInfo { hasNextPage endCursor }
        }
      }
    }
  }`;

/**
 * The Traces tab: each trace's root span with the trace's span count and tokens, sorted by the
 * trace's start time or latency; the span filters apply to the root span.
 */
export const fetchRootSpans = (
  args: { projectId: string; first: number; after: string | null; timeRange: TimeRange; filter: SpanFilterState; sort: TraceSortState },
  signal?: AbortSignal,
): Promise<Page<RootSpanRow>> =>
  fetchRootSpanRows(
    ROOT_SPANS_BY_TRACE,
    {
      id: args.projectId,
      first: args.first,
      after: args.after,
      timeRange: range(args.timeRange),
      sort: args.sort,
      filter: apiFilterOf(args.filter),
      filterCondition: args.filter.condition || null,
      search: args.filter.search || null,
    },
    signal,
  );

const SPANS = `
  query ProjectSpans($id: ID!, $first: Int!, $after: String, $timeRange: TimeRange, $filter: SpanFilter, $rootSpansOnly: Boolean, $sort: SpanSort, $filterCondition: String, $search: String) {
    node(id: $id) {
      ... on Project {
        rows: spans(first: $first, after: $after, timeRange: $timeRange, filter: $filter, rootSpansOnly: $rootSpansOnly, sort: $sort, filterCondition: $filterCondition, search: $search) {
          edges { node { ${SPAN_ROW_FIELDS} } }
          pageInfo { hasNextPage endCursor }
        }
      }
    }
  }`;

export const fetchSpans = (
  args: {
    projectId: string;
    first: number;
    after: string | null;
    timeRange: TimeRange;
    filter: SpanFilterState;
    rootSpansOnly: boolean;
    sort: TraceSortState;
  },
  signal?: AbortSignal,
): Promise<Page<SpanRow>> =>
  fetchSpanRows(
    SPANS,
    {
      id: args.projectId,
      first: args.first,
      after: args.after,
      timeRange: range(args.timeRange),
      filter: apiFilterOf(args.filter),
      filterCondition: args.filter.condition || null,
      search: args.filter.search || null,
      rootSpansOnly: args.rootSpansOnly || null,
      sort: args.sort,
    },
    signal,
  );

const SESSIONS = `
  query ProjectSessions($id: ID!, $first: Int!, $after: String, $dir: SortDir, $sort: ProjectSessionSort, $timeRange: TimeRange, $filterCondition: String, $search: String) {
    node(id: $id) {
      ... on Project {
        sessions(first: $first, after: $after, dir: $dir, sort: $sort, timeRange: $timeRange, filterCondition: $filterCondition, search: $search) {
          edges { node {
            id sessionId userId startTime endTime durationMs numTraces numTracesWithError
            firstInput ${IO_PREVIEW} lastOutput ${IO_PREVIEW} tokenUsage { total } cost { total }
          } }
          pageInfo { hasNextPage endCursor }
        }
      }
    }
  }`;

export const fetchSessions = async (
  args: {
    projectId: string;
    first: number;
    after: string | null;
    dir: 'asc' | 'desc';
    /** By cost instead of by row id (sessions without a cost last either way). */
    sort?: { col: 'costTotal' | 'startTime'; dir: 'asc' | 'desc' } | null;
    timeRange?: TimeRange;
    condition?: string;
    search?: string;
  },
  signal?: AbortSignal,
): Promise<Page<SessionRow>> => {
  const reply = await gql<{ node: { sessions: Connection<SessionRow> } }>(
    SESSIONS,
    {
      id: args.projectId,
      first: args.first,
      after: args.after,
      dir: args.dir,
      sort: args.sort ?? null,
      timeRange: args.timeRange ? range(args.timeRange) : null,
      filterCondition: args.condition || null,
      search: args.search || null,
    },
    signal,
  );
  return pageOf(reply.node.sessions, (s) => s);
};

/** The API's page limit for a trace's spans; the first page is smaller, so the top of a big tree shows sooner. */
const TREE_PAGE = 1000;
const TREE_FIRST_PAGE = 250;
const TREE_SPAN_FIELDS = `id spanId parentId name spanKind statusCode startTime latencyMs tokenCountTotal`;

// The trace and its first page of spans in one round trip: a big trace shows its top at once.
const TRACE = `
  query TraceDetail($id: ID!, $traceId: ID!, $first: Int!) {
    node(id: $id) {
      ... on Project {
        id name
        trace(traceId: $traceId) {
          id traceId startTime endTime latencyMs numSpans errorCount tokenCountPrompt tokenCountCompletion tokenCountTotal
          cost { prompt completion total } unpricedModels
          session { id sessionId }
          spans(first: $first) { edges { node { ${TREE_SPAN_FIELDS} } } pageInfo { hasNextPage endCursor } }
        }
      }
    }
  }`;

const TRACE_SPANS = `
  query TraceSpans($id: ID!, $first: Int!, $after: String) {
    node(id: $id) {
      ... on Trace {
        spans(first: $first, after: $after) { edges { node { ${TREE_SPAN_FIELDS} } } pageInfo { hasNextPage endCursor } }
      }
    }
  }`;

/**
 * A trace with every one of its spans, a page of 1000 at a time; `onProgress` sees the trace and
 * the spans so far after each page, so the tree of a big trace shows while the rest loads.
 */
export const fetchTraceWithSpans = async (
  projectId: string,
  traceId: string,
  onProgress: (progress: {
    project: { id: string; name: string };
    trace: TraceSummary | null;
    spans: readonly TreeSpan[];
    done: boolean;
  }) => void,
  signal?: AbortSignal,
): Promise<void> => {
  type TraceReply = { node: { id: string; name: string; trace: (TraceSummary & { spans: Connection<TreeSpan> }) | null } };
  const reply = await gql<TraceReply>(TRACE, { id: projectId, traceId, first: TREE_FIRST_PAGE }, signal);
  const project = { id: reply.node.id, name: reply.node.name };
  const found = reply.node.trace;
  if (found === null) return onProgress({ project, trace: null, spans: [], done: true });
  const { spans: firstPage, ...trace } = found;
  const all: TreeSpan[] = firstPage.edges.map((e) => e.node);
  let after = firstPage.pageInfo.hasNextPage ? firstPage.pageInfo.endCursor : null;
  onProgress({ project, trace, spans: [...all], done: after === null });
  while (after !== null) {
    const page: { node: { spans: Connection<TreeSpan> } } = await gql(TRACE_SPANS, { id: trace.id, first: TREE_PAGE, after }, signal);
    all.push(...page.node.spans.edges.map((e) => e.node));
    after = page.node.spans.pageInfo.hasNextPage ? page.node.spans.pageInfo.endCursor : null;
    onProgress({ project, trace, spans: [...all], done: after === null });
  }
};

const SPAN = `
  query SpanDetail($id: ID!) {
    node(id: $id) {
      ... on Span {
        id spanId parentId name spanKind statusCode statusMessage startTime endTime latencyMs
        tokenCountPrompt tokenCountCompletion tokenCountTotal cost { prompt completion total }
        input { value mimeType } output { value mimeType }
        attributes
        events { name timestamp message attributes }
        documentAnnotations { name label score explanation annotatorKind documentPosition }
      }
    }
  }`;

const parseAttributes = (json: string): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

export const fetchSpanDetail = async (spanGlobalId: string, signal?: AbortSignal): Promise<SpanDetail> => {
  type Reply = { node: Omit<SpanDetail, 'attributes' | 'events'> & { attributes: string; events: SpanEvent[] } };
  const reply = await gql<Reply>(SPAN, { id: spanGlobalId }, signal);
  return { ...reply.node, attributes: parseAttributes(reply.node.attributes) };
};

const SESSION = `
  query SessionDetail($id: ID!) {
    node(id: $id) {
      ... on ProjectSession {
        id sessionId userId startTime endTime durationMs numTraces numTracesWithError
        tokenUsage { prompt completion total }
        cost { prompt completion total }
        project { id name }
        turns { traceId startTime endTime input { value mimeType } output { value mimeType } trace { latencyMs tokenCountTotal errorCount } }
      }
    }
  }`;

export const fetchSession = async (sessionGlobalId: string, signal?: AbortSignal): Promise<SessionDetail> => {
  const reply = await gql<{ node: SessionDetail }>(SESSION, { id: sessionGlobalId }, signal);
  return reply.node;
};

/** Where the /redirects/* links land: the ids the app's routes take. */
export const lookupProjectByName = async (name: string): Promise<string | null> =>
  (await gql<{ getProjectByName: { id: string } | null }>(`query R($name: String!) { getProjectByName(name: $name) { id } }`, { name }))
    .getProjectByName?.id ?? null;

export const lookupTrace = async (traceId: string): Promise<{ projectId: string; traceId: string } | null> => {
  const reply = await gql<{ getTraceByOtelId: { projectId: string; traceId: string } | null }>(
    `query R($traceId: String!) { getTraceByOtelId(traceId: $traceId) { projectId traceId } }`,
    { traceId },
  );
  return reply.getTraceByOtelId;
};

export const lookupSpan = async (spanId: string): Promise<{ projectId: string; traceId: string; spanId: string } | null> => {
  const reply = await gql<{ getSpanByOtelId: { spanId: string; project: { id: string }; context: { traceId: string } } | null }>(
    `query R($spanId: String!) { getSpanByOtelId(spanId: $spanId) { spanId project { id } context { traceId } } }`,
    { spanId },
  );
  const span = reply.getSpanByOtelId;
  return span === null ? null : { projectId: span.project.id, traceId: span.context.traceId, spanId: span.spanId };
};

export const lookupSession = async (sessionId: string): Promise<{ projectId: string; id: string } | null> => {
  const reply = await gql<{ getProjectSessionById: { id: string; project: { id: string } } | null }>(
    `query R($sessionId: String!) { getProjectSessionById(sessionId: $sessionId) { id project { id } } }`,
    { sessionId },
  );
  const session = reply.getProjectSessionById;
  return session === null ? null : { projectId: session.project.id, id: session.id };
};

/** Deletes a trace with all its spans (members and admins; the server decides). */
export const deleteTrace = async (traceGlobalId: string): Promise<void> => {
  await gql(`mutation D($ids: [ID!]!) { deleteTraces(traceIds: $ids) { deletedIds } }`, { ids: [traceGlobalId] });
};

/** Deletes a session with its traces. */
export const deleteSession = async (sessionGlobalId: string): Promise<void> => {
  await gql(`mutation D($ids: [ID!]!) { deleteProjectSessions(sessionIds: $ids) { deletedIds } }`, { ids: [sessionGlobalId] });
};
