import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { inProject } from './inProject.ts';

const annotationRow = z.object({
  id: z.bigint().transform(Number),
  target: z.enum(['span', 'trace', 'session', 'document']),
  target_id: z.string(),
  document_position: z.number().nullable(),
  name: z.string(),
  identifier: z.string(),
  annotator_kind: z.enum(['HUMAN', 'LLM', 'CODE']),
  label: z.string().nullable(),
  score: z.number().nullable(),
  explanation: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  source: z.enum(['API', 'APP']),
  actor: z.string(),
  user_id: z.string().nullable(),
  created_us: z.bigint(),
  updated_us: z.bigint(),
});

export type AnnotationRow = z.infer<typeof annotationRow>;

const columns = sql.fragment`a.id, a.target, a.target_id, a.document_position, a.name, a.identifier, a.annotator_kind, a.label, a.score,
  a.explanation, a.metadata, a.source, a.actor, a.user_id,
  (extract(epoch FROM a.created_at) * 1000000)::bigint AS created_us, (extract(epoch FROM a.updated_at) * 1000000)::bigint AS updated_us`;

const texts = (values: readonly string[]) => sql.array([...values], 'text');

export type AnnotationListQuery = {
  /** The project's uuid: only annotations whose target is known to be in it. */
  readonly projectId: string;
  readonly target: 'span' | 'trace' | 'session';
  readonly targetIds?: readonly string[];
  readonly identifiers?: readonly string[];
  readonly includeNames?: readonly string[];
  readonly excludeNames?: readonly string[];
  /** A row id, inclusive (the first row of the page). */
  readonly cursor: number | null;
  readonly limit: number;
};

/** Newest first; `limit + 1` rows so the caller sees whether a page follows. */
export const listAnnotations = (db: CommonQueryMethods, q: AnnotationListQuery): Promise<readonly AnnotationRow[]> => {
  const where = [
    sql.fragment`a.target = ${q.target}`,
    inProject(q.target, q.projectId),
    ...(q.targetIds !== undefined ? [sql.fragment`a.target_id = ANY(${texts(q.targetIds)})`] : []),
    // `<> ''` lets the partial identifier index serve the query (identifiers to filter by are never empty).
    ...(q.identifiers !== undefined ? [sql.fragment`a.identifier = ANY(${texts(q.identifiers)}) AND a.identifier <> ''`] : []),
    ...(q.includeNames !== undefined ? [sql.fragment`a.name = ANY(${texts(q.includeNames)})`] : []),
    ...(q.excludeNames !== undefined ? [sql.fragment`NOT (a.name = ANY(${texts(q.excludeNames)}))`] : []),
    ...(q.cursor !== null ? [sql.fragment`a.id <= ${q.cursor}`] : []),
  ];
  return db.any(sql.type(annotationRow)`
    SELECT ${columns} FROM annotations a WHERE ${sql.join(where, sql.fragment` AND `)} ORDER BY a.id DESC LIMIT ${q.limit + 1}`);
};

/** Every annotation on these targets (any project, also targets not arrived yet), oldest first. */
export const annotationsOnTargets = (
  db: CommonQueryMethods,
  target: 'span' | 'trace' | 'session' | 'document',
  targetIds: readonly string[],
): Promise<readonly AnnotationRow[]> =>
  db.any(sql.type(annotationRow)`
    SELECT ${columns} FROM annotations a WHERE a.target = ${target} AND a.target_id = ANY(${texts(targetIds)}) ORDER BY a.id`);

/** Row ids by upsert key (`annotationKey`): what a synchronous write answers with. */
export const annotationIdsByKey = async (db: CommonQueryMethods, keys: readonly string[]): Promise<ReadonlyMap<string, number>> => {
  const rows = await db.any(sql.type(z.object({ key: z.string(), id: z.bigint() }))`
    SELECT key, id FROM annotations WHERE key = ANY(${texts([...new Set(keys)])})`);
  return new Map(rows.map((r) => [r.key, Number(r.id)]));
};

/** Which of these spans, traces or sessions this read model knows (in any project). */
export const knownTargets = async (
  db: CommonQueryMethods,
  target: 'span' | 'trace' | 'session',
  ids: readonly string[],
  projectId?: string,
): Promise<ReadonlySet<string>> => {
  const list = texts([...new Set(ids)]);
  const inThatProject = (column: ReturnType<typeof sql.fragment>) =>
    projectId === undefined ? sql.fragment`true` : sql.fragment`${column} = ${projectId}`;
  const query =
    target === 'span'
      ? sql.type(z.object({ id: z.string() }))`
          SELECT sp.span_id AS id FROM annotation_span_scope sp JOIN annotation_trace_scope t ON t.trace_id = sp.trace_id
          WHERE sp.span_id = ANY(${list}) AND ${inThatProject(sql.fragment`t.project_id`)}`
      : target === 'trace'
        ? sql.type(z.object({ id: z.string() }))`
          SELECT trace_id AS id FROM annotation_trace_scope t WHERE trace_id = ANY(${list}) AND ${inThatProject(sql.fragment`t.project_id`)}`
        : sql.type(z.object({ id: z.string() }))`
          SELECT session_id AS id FROM annotation_session_scope s WHERE session_id = ANY(${list}) AND ${inThatProject(sql.fragment`s.project_id`)}`;
  return new Set(await db.anyFirst(query));
};

/**
 * The projects (row ids) the known targets among `ids` are in: what an annotation write acts on,
 * for the project dimension of its permission. Targets not received yet are in none.
 */
export const targetProjectRowids = async (
  db: CommonQueryMethods,
  target: 'span' | 'trace' | 'session',
  ids: readonly string[],
): Promise<readonly number[]> => {
  const list = texts([...new Set(ids)]);
  const scope =
    target === 'span'
      ? sql.fragment`SELECT t.project_id FROM annotation_span_scope sp JOIN annotation_trace_scope t ON t.trace_id = sp.trace_id
          WHERE sp.span_id = ANY(${list})`
      : target === 'trace'
        ? sql.fragment`SELECT project_id FROM annotation_trace_scope WHERE trace_id = ANY(${list})`
        : sql.fragment`SELECT project_id FROM annotation_session_scope WHERE session_id = ANY(${list})`;
  return db.anyFirst(sql.type(z.object({ id: z.bigint().transform(Number) }))`
    SELECT DISTINCT p.id FROM projects p WHERE p.project_id IN (${scope})`);
};

/** Annotations by row id (the app edits and deletes by id). */
export const annotationsByIds = (db: CommonQueryMethods, ids: readonly number[]): Promise<readonly AnnotationRow[]> =>
  db.any(
    sql.type(annotationRow)`SELECT ${columns} FROM annotations a WHERE a.id = ANY(${sql.array([...new Set(ids)], 'int8')}) ORDER BY a.id`,
  );
