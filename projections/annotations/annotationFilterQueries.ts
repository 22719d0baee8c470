import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/** Which annotations count: one name, and optionally some labels and a score range (inclusive). */
export type AnnotationMatch = {
  readonly name: string;
  readonly labels?: readonly string[];
  readonly minScore?: number;
  readonly maxScore?: number;
};

const matching = (m: AnnotationMatch, target: 'span' | 'trace') =>
  sql.join(
    [
      sql.fragment`a.target = ${target}`,
      sql.fragment`a.name = ${m.name}`,
      ...(m.labels !== undefined ? [sql.fragment`a.label = ANY(${sql.array([...m.labels], 'text')})`] : []),
      ...(m.minScore !== undefined ? [sql.fragment`a.score >= ${m.minScore}`] : []),
      ...(m.maxScore !== undefined ? [sql.fragment`a.score <= ${m.maxScore}`] : []),
    ],
    sql.fragment` AND `,
  );

const ids = z.object({ id: z.bigint().transform(Number) });

/**
 * Row ids of a project's traces that carry a matching annotation, on the trace itself or on any
 * of its spans (annotating a span marks its trace): the traces table's annotation filter. Newest
 * row first from `cursor` (inclusive); `limit + 1` rows. Driven from the annotations (few) rather
 * than the traces (many); the tracing tables are only joined by their unique keys.
 */
export const tracesWithAnnotation = async (
  db: CommonQueryMethods,
  q: { readonly projectRowid: number; readonly match: AnnotationMatch; readonly cursor: number | null; readonly limit: number },
): Promise<readonly { readonly id: number }[]> =>
  db.any(sql.type(ids)`
    SELECT id FROM (
      SELECT s.trace_rowid AS id FROM annotations a JOIN spans s ON s.span_id = a.target_id
      WHERE ${matching(q.match, 'span')} AND s.project_id = ${q.projectRowid}
      UNION
      SELECT t.id FROM annotations a JOIN traces t ON t.trace_id = a.target_id
      WHERE ${matching(q.match, 'trace')} AND t.project_id = ${q.projectRowid}
    ) matched
    WHERE ${q.cursor === null ? sql.fragment`true` : sql.fragment`id <= ${q.cursor}`}
    ORDER BY id DESC LIMIT ${q.limit + 1}`);

/** Row ids of a project's spans that carry a matching annotation; as above. */
export const spansWithAnnotation = async (
  db: CommonQueryMethods,
  q: { readonly projectRowid: number; readonly match: AnnotationMatch; readonly cursor: number | null; readonly limit: number },
): Promise<readonly { readonly id: number }[]> =>
  db.any(sql.type(ids)`
    SELECT DISTINCT s.id FROM annotations a JOIN spans s ON s.span_id = a.target_id
    WHERE ${matching(q.match, 'span')} AND s.project_id = ${q.projectRowid}
      AND ${q.cursor === null ? sql.fragment`true` : sql.fragment`s.id <= ${q.cursor}`}
    ORDER BY s.id DESC LIMIT ${q.limit + 1}`);
