import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { inProject } from './inProject.ts';

export type AnnotationSummary = {
  readonly name: string;
  readonly count: number;
  /** Mean of the scores given (null when none has a score). */
  readonly meanScore: number | null;
  /** How often each label was given, most frequent first. */
  readonly labels: readonly { readonly label: string; readonly count: number }[];
};

const groupRow = z.object({
  name: z.string(),
  label: z.string().nullable(),
  /** 1 on the per-name row, 0 on the per-(name, label) rows */
  per_name: z.number(),
  n: z.bigint().transform(Number),
  mean_score: z.number().nullable(),
});

/**
 * Per annotation name, over a project's span, trace or session annotations: how many, their mean
 * score and their label distribution — the project page's and the traces table's summaries.
 * Notes are left out (they have no label or score). One pass over the rows (grouping sets): a
 * self-join of the matched rows, planned before the tables' statistics exist, went quadratic.
 */
export const annotationSummaries = async (
  db: CommonQueryMethods,
  projectId: string,
  target: 'span' | 'trace' | 'session',
): Promise<readonly AnnotationSummary[]> => {
  const rows = await db.any(sql.type(groupRow)`
    SELECT a.name, a.label, GROUPING(a.label) AS per_name, count(*) AS n, avg(a.score) AS mean_score
    FROM annotations a
    WHERE a.target = ${target} AND a.name <> 'note' AND ${inProject(target, projectId)}
    GROUP BY GROUPING SETS ((a.name), (a.name, a.label))`);
  const byName = new Map<string, { count: number; meanScore: number | null; labels: { label: string; count: number }[] }>();
  for (const r of rows.filter((r) => r.per_name === 1)) byName.set(r.name, { count: r.n, meanScore: r.mean_score, labels: [] });
  for (const r of rows) if (r.per_name === 0 && r.label !== null) byName.get(r.name)?.labels.push({ label: r.label, count: r.n });
  return [...byName]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, s]) => ({
      name,
      count: s.count,
      meanScore: s.meanScore,
      labels: s.labels.sort((a, b) => b.count - a.count || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0)),
    }));
};
