import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const configRow = z.object({
  id: z.bigint().transform(Number),
  name: z.string(),
  type: z.enum(['CATEGORICAL', 'CONTINUOUS', 'FREEFORM']),
  description: z.string().nullable(),
  optimization_direction: z.string().nullable(),
  values: z.array(z.object({ label: z.string(), score: z.number().nullable() })).nullable(),
  lower_bound: z.number().nullable(),
  upper_bound: z.number().nullable(),
  threshold: z.number().nullable(),
});

export type AnnotationConfigRow = z.infer<typeof configRow>;

const columns = sql.fragment`c.id, c.name, c.type, c.description, c.optimization_direction, c."values", c.lower_bound, c.upper_bound, c.threshold`;

/** Newest first from `cursor` (a row id, inclusive); `limit + 1` rows. With a project: only the configs assigned to it. */
export const listAnnotationConfigs = (
  db: CommonQueryMethods,
  q: { readonly cursor: number | null; readonly limit: number; readonly projectId?: string },
): Promise<readonly AnnotationConfigRow[]> => {
  const where = [
    sql.fragment`true`,
    ...(q.cursor !== null ? [sql.fragment`c.id <= ${q.cursor}`] : []),
    ...(q.projectId !== undefined
      ? [sql.fragment`EXISTS (SELECT 1 FROM project_annotation_configs p WHERE p.config_id = c.id AND p.project_id = ${q.projectId})`]
      : []),
  ];
  return db.any(sql.type(configRow)`
    SELECT ${columns} FROM annotation_configs c WHERE ${sql.join(where, sql.fragment` AND `)} ORDER BY c.id DESC LIMIT ${q.limit + 1}`);
};

export const findAnnotationConfig = (
  db: CommonQueryMethods,
  by: { readonly id: number } | { readonly name: string },
): Promise<AnnotationConfigRow | null> =>
  db.maybeOne(sql.type(configRow)`
    SELECT ${columns} FROM annotation_configs c WHERE ${'id' in by ? sql.fragment`c.id = ${by.id}` : sql.fragment`c.name = ${by.name}`}`);
