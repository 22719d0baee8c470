import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';

/**
 * Row ids of a page of a project's sessions that started in a time range (start inclusive, end
 * exclusive, either open), by row id as `listSessions` pages them, from `cursor` inclusive;
 * `limit + 1` ids. The rows themselves come from the session loader. Kept apart from
 * sessionQueries.ts so the projection's own files stay the projector's.
 */
export const sessionIdsInRange = (
  db: CommonQueryMethods,
  f: {
    readonly projectId: number;
    readonly cursor: number | null;
    readonly limit: number;
    readonly order: 'asc' | 'desc';
    readonly startTime?: string;
    readonly endTime?: string;
    /** Compiled conditions on `sessions s` (the filter language and full-text search, projections/filters/). */
    readonly conditions?: readonly FragmentSqlToken[];
  },
): Promise<readonly number[]> => {
  const desc = f.order === 'desc';
  const where = [
    sql.fragment`s.project_id = ${f.projectId}`,
    ...(f.cursor !== null ? [desc ? sql.fragment`s.id <= ${f.cursor}` : sql.fragment`s.id >= ${f.cursor}`] : []),
    ...(f.startTime !== undefined ? [sql.fragment`s.start_time >= ${f.startTime}::timestamptz`] : []),
    ...(f.endTime !== undefined ? [sql.fragment`s.start_time < ${f.endTime}::timestamptz`] : []),
    ...(f.conditions ?? []),
  ];
  return db.anyFirst(sql.type(z.object({ id: z.bigint().transform(Number) }))`
    SELECT s.id FROM sessions s
    WHERE ${sql.join(where, sql.fragment` AND `)}
    ORDER BY s.id ${desc ? sql.fragment`DESC` : sql.fragment`ASC`}
    LIMIT ${f.limit + 1}`);
};
