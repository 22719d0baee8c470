import { gql } from '../api/graphql.ts';
import type {
  Annotation,
  AnnotationChipData,
  AnnotationConfig,
  AnnotationConfigInput,
  AnnotationSummary,
  AnnotationTarget,
} from './annotationTypes.ts';

const ANNOTATION = `id name label score explanation annotatorKind source userId authorName createdAt updatedAt`;
const CONFIG = `id name type description optimizationDirection values { label score } lowerBound upperBound threshold`;
const CHIP = `name label score annotatorKind`;

export type TargetAnnotations = { readonly annotations: readonly Annotation[]; readonly notes: readonly Annotation[] };

const TARGET_QUERY: Record<AnnotationTarget, string> = {
  span: `query SpanAnnotations($id: ID!) { node(id: $id) { ... on Span { annotations: spanAnnotations { ${ANNOTATION} } notes: spanNotes { ${ANNOTATION} } } } }`,
  trace: `query TraceAnnotations($id: ID!) { node(id: $id) { ... on Trace { annotations: traceAnnotations { ${ANNOTATION} } notes: traceNotes { ${ANNOTATION} } } } }`,
  session: `query SessionAnnotations($id: ID!) { node(id: $id) { ... on ProjectSession { annotations: sessionAnnotations { ${ANNOTATION} } notes: sessionNotes { ${ANNOTATION} } } } }`,
};

/** A span's, trace's or session's annotations and notes, by the object's global id. */
export const fetchTargetAnnotations = async (
  target: AnnotationTarget,
  nodeId: string,
  signal?: AbortSignal,
): Promise<TargetAnnotations> => {
  const reply = await gql<{ node: TargetAnnotations }>(TARGET_QUERY[target], { id: nodeId }, signal);
  return { annotations: reply.node.annotations ?? [], notes: reply.node.notes ?? [] };
};

/** Records one human annotation from the app (the same name on the same target replaces the earlier one). */
export const createAnnotation = async (input: {
  target: AnnotationTarget;
  targetId: string;
  name: string;
  label?: string | null;
  score?: number | null;
  explanation?: string | null;
}): Promise<Annotation> => {
  const reply = await gql<{ createAnnotations: Annotation[] }>(
    `mutation Annotate($input: [AnnotationInput!]!) { createAnnotations(input: $input) { ${ANNOTATION} } }`,
    { input: [{ annotatorKind: 'HUMAN', ...input }] },
  );
  return reply.createAnnotations[0]!;
};

/** Changes one's own annotation; only the fields given change (null clears). */
export const patchAnnotation = async (patch: {
  id: string;
  label?: string | null;
  score?: number | null;
  explanation?: string | null;
}): Promise<Annotation> => {
  const reply = await gql<{ patchAnnotations: Annotation[] }>(
    `mutation PatchAnnotation($patches: [AnnotationPatch!]!) { patchAnnotations(patches: $patches) { ${ANNOTATION} } }`,
    { patches: [patch] },
  );
  return reply.patchAnnotations[0]!;
};

export const deleteAnnotation = async (id: string): Promise<void> => {
  await gql(`mutation DeleteAnnotations($ids: [ID!]!) { deleteAnnotations(ids: $ids) { deletedIds } }`, { ids: [id] });
};

export const createNote = async (target: AnnotationTarget, targetId: string, note: string): Promise<Annotation> => {
  const reply = await gql<{ createNote: Annotation }>(
    `mutation AddNote($note: String!, $target: AnnotationTarget!, $targetId: ID!) { createNote(note: $note, target: $target, targetId: $targetId) { ${ANNOTATION} } }`,
    { note, target, targetId },
  );
  return reply.createNote;
};

/** The configs assigned to a project: what its annotation panels offer. */
export const fetchProjectConfigs = async (projectId: string, signal?: AbortSignal): Promise<readonly AnnotationConfig[]> => {
  const reply = await gql<{ node: { annotationConfigs: AnnotationConfig[] } }>(
    `query ProjectConfigs($id: ID!) { node(id: $id) { ... on Project { annotationConfigs { ${CONFIG} } } } }`,
    { id: projectId },
    signal,
  );
  return reply.node.annotationConfigs ?? [];
};

/** The names (and their labels) annotated in a project, spans and traces together: the filter's choices. */
export const fetchAnnotationSummaries = async (
  projectId: string,
  signal?: AbortSignal,
): Promise<{ spans: readonly AnnotationSummary[]; traces: readonly AnnotationSummary[] }> => {
  const S = `name count meanScore labels { label count }`;
  const reply = await gql<{ node: { spanAnnotationSummaries: AnnotationSummary[]; traceAnnotationSummaries: AnnotationSummary[] } }>(
    `query AnnotationSummaries($id: ID!) { node(id: $id) { ... on Project { spanAnnotationSummaries { ${S} } traceAnnotationSummaries { ${S} } } } }`,
    { id: projectId },
    signal,
  );
  return { spans: reply.node.spanAnnotationSummaries ?? [], traces: reply.node.traceAnnotationSummaries ?? [] };
};

// GraphQL variable names must be identifiers; ids are passed as variables, never pasted into the query.
const aliased = (count: number, field: (i: number) => string, varType: string) => ({
  head: Array.from({ length: count }, (_, i) => `$v${i}: ${varType}`).join(', '),
  body: Array.from({ length: count }, (_, i) => `r${i}: ${field(i)}`).join('\n'),
});

/**
 * The chips of a page of trace rows: each trace's own annotations and its root span's, in one
 * request (the server batches the lookups). Keyed by trace id.
 */
export const fetchTraceChips = async (traceIds: readonly string[], signal?: AbortSignal): Promise<Map<string, AnnotationChipData[]>> => {
  if (traceIds.length === 0) return new Map();
  const q = aliased(
    traceIds.length,
    (i) => `getTraceByOtelId(traceId: $v${i}) { traceAnnotations { ${CHIP} } rootSpan { spanAnnotations { ${CHIP} } } }`,
    'String!',
  );
  type Row = { traceAnnotations: AnnotationChipData[]; rootSpan: { spanAnnotations: AnnotationChipData[] } | null } | null;
  const reply = await gql<Record<string, Row>>(
    `query TraceChips(${q.head}) {\n${q.body}\n}`,
    Object.fromEntries(traceIds.map((id, i) => [`v${i}`, id])),
    signal,
  );
  return new Map(
    traceIds.map((id, i) => {
      const row = reply[`r${i}`];
      return [id, [...(row?.traceAnnotations ?? []), ...(row?.rootSpan?.spanAnnotations ?? [])]];
    }),
  );
};

/** The chips of a page of span rows, keyed by the span's global id. */
export const fetchSpanChips = async (spanNodeIds: readonly string[], signal?: AbortSignal): Promise<Map<string, AnnotationChipData[]>> => {
  if (spanNodeIds.length === 0) return new Map();
  const q = aliased(spanNodeIds.length, (i) => `node(id: $v${i}) { ... on Span { spanAnnotations { ${CHIP} } } }`, 'ID!');
  const reply = await gql<Record<string, { spanAnnotations?: AnnotationChipData[] }>>(
    `query SpanChips(${q.head}) {\n${q.body}\n}`,
    Object.fromEntries(spanNodeIds.map((id, i) => [`v${i}`, id])),
    signal,
  );
  return new Map(spanNodeIds.map((id, i) => [id, reply[`r${i}`]?.spanAnnotations ?? []]));
};

// Settings: every config, and which projects use each.

export const fetchAllConfigs = async (signal?: AbortSignal): Promise<readonly AnnotationConfig[]> =>
  (await gql<{ annotationConfigs: AnnotationConfig[] }>(`query AllConfigs { annotationConfigs { ${CONFIG} } }`, {}, signal))
    .annotationConfigs;

export type ProjectConfigs = { readonly id: string; readonly name: string; readonly configIds: readonly string[] };

/** The projects (first 200) with the ids of the configs assigned to each. */
export const fetchProjectAssignments = async (signal?: AbortSignal): Promise<readonly ProjectConfigs[]> => {
  type Reply = { projects: { edges: { node: { id: string; name: string; annotationConfigs: { id: string }[] } }[] } };
  const reply = await gql<Reply>(
    `query ProjectAssignments { projects(first: 200) { edges { node { id name annotationConfigs { id } } } } }`,
    {},
    signal,
  );
  return reply.projects.edges.map(({ node }) => ({ id: node.id, name: node.name, configIds: node.annotationConfigs.map((c) => c.id) }));
};

export const createConfig = async (input: AnnotationConfigInput): Promise<AnnotationConfig> =>
  (
    await gql<{ createAnnotationConfig: AnnotationConfig }>(
      `mutation CreateConfig($input: AnnotationConfigInput!) { createAnnotationConfig(input: $input) { ${CONFIG} } }`,
      { input },
    )
  ).createAnnotationConfig;

export const updateConfig = async (id: string, input: AnnotationConfigInput): Promise<AnnotationConfig> =>
  (
    await gql<{ updateAnnotationConfig: AnnotationConfig }>(
      `mutation UpdateConfig($id: ID!, $input: AnnotationConfigInput!) { updateAnnotationConfig(id: $id, input: $input) { ${CONFIG} } }`,
      { id, input },
    )
  ).updateAnnotationConfig;

export const deleteConfig = async (id: string): Promise<void> => {
  await gql(`mutation DeleteConfig($id: ID!) { deleteAnnotationConfig(id: $id) { id } }`, { id });
};

export const setProjectConfigs = async (projectId: string, configIds: readonly string[]): Promise<void> => {
  await gql(
    `mutation AssignConfigs($projectId: ID!, $configIds: [ID!]!) { setProjectAnnotationConfigs(projectId: $projectId, configIds: $configIds) { id } }`,
    {
      projectId,
      configIds,
    },
  );
};
