import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { type SortColumn, sortKey } from './sortKey.ts';

/**
 * Row ids of a page of a project's sessions that started in a time range (start inclusive, end
 * exclusive, either open), from `cursor` inclusive; `limit + 1` ids. By row id as `listSessions`
 * pages them, or by start time, latency or cost (sessions without a cost last), ties broken by
 * row id in the same direction: the page starts at the cursor session's sort key, so no page skips
 * or repeats a session. The rows themselves come from the session loader. Kept apart from
 * sessionQueries.ts so the projection's own files stay the projector's.
 */
export const sessionIdsInRange = async (
  db: CommonQueryMethods,
  f: {
    readonly projectId: number;
    readonly cursor: number | null;
    readonly limit: number;
    readonly order: 'asc' | 'desc';
    /** Absent: by row id. */
    readonly sort?: SortColumn;
    readonly startTime?: string;
    readonly endTime?: string;
    /** Compiled conditions on `sessions s` (the filter language and full-text search, projections/filters/). */
    readonly conditions?: readonly FragmentSqlToken[];
  },
): Promise<readonly number[]> => {
  const desc = f.order === 'desc';
  const cmp = desc ? sql.fragment`<=` : sql.fragment`>=`;
  const sorted = f.sort === undefined ? null : sortKey('s', f.sort, f.order);
  const start =
    f.cursor === null || sorted === null
      ? null
      : await db.maybeOneFirst(
          sql.type(z.object({ key: z.string() }))`SELECT (${sorted.key})::text AS key FROM sessions s WHERE s.id = ${f.cursor}`,
        );
  const where = [
    sql.fragment`s.project_id = ${f.projectId}`,
    ...(f.cursor === null
      ? []
      : sorted === null || start === null
        ? [sql.fragment`s.id ${cmp} ${f.cursor}`]
        : [sql.fragment`(${sorted.key}, s.id) ${cmp} (${start}::${sorted.type}, ${f.cursor})`]),
    ...(f.startTime !== undefined ? [sql.fragment`s.start_time >= ${f.startTime}::timestamptz`] : []),
    ...(f.endTime !== undefined ? [sql.fragment`s.start_time < ${f.endTime}::timestamptz`] : []),
    ...(f.conditions ?? []),
  ];
  const direction = desc ? sql.fragment`DESC` : sql.fragment`ASC`;
  return db.anyFirst(sql.type(z.object({ id: z.bigint().transform(Number) }))`
    SELECT s.id FROM sessions s
    WHERE ${sql.join(where, sql.fragment` AND `)}
    ORDER BY ${sorted === null ? sql.fragment`` : sql.fragment`${sorted.key} ${direction}, `}s.id ${direction}
    LIMIT ${f.limit + 1}`);
};
