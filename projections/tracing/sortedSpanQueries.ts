import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { type SortColumn, sortKey } from './sortKey.ts';
import { spanColumns, spanFilterConditions, spanRow, type SpanFilter, type SpanRow } from './spanQueries.ts';

export type SpanSort = { readonly by: SortColumn; readonly order: 'asc' | 'desc' };

/**
 * `listSpans` (the REST span list, newest row first) with a sort: by start time, latency or cost
 * (spans without a cost last, sortKey.ts), ties
 * broken by row id in the same direction. The cursor is the first span of the page, as in
 * `listTraces`: the page starts at that span's sort key, so no page skips or repeats a span.
 * The filters are listSpans' own, with the same meaning.
 */
export const listSpansSorted = async (db: CommonQueryMethods, f: SpanFilter, sort: SpanSort): Promise<readonly SpanRow[]> => {
  const { key, type: keyType } = sortKey('s', sort.by, sort.order);
  const desc = sort.order === 'desc';
  const cmp = desc ? sql.fragment`<=` : sql.fragment`>=`;
  const start =
    f.cursor === null
      ? null
      : await db.maybeOneFirst(sql.type(z.object({ key: z.string() }))`SELECT (${key})::text AS key FROM spans s WHERE s.id = ${f.cursor}`);
  const where = [
    ...spanFilterConditions(f),
    ...(f.cursor === null
      ? []
      : start === null
        ? [sql.fragment`s.id ${cmp} ${f.cursor}`]
        : [sql.fragment`(${key}, s.id) ${cmp} (${start}::${keyType}, ${f.cursor})`]),
  ];
  const direction = desc ? sql.fragment`DESC` : sql.fragment`ASC`;
  return db.any(sql.type(spanRow)`
    SELECT ${spanColumns}
    FROM spans s
    WHERE ${sql.join(where, sql.fragment` AND `)}
    ORDER BY ${key} ${direction}, s.id ${direction}
    LIMIT ${f.limit + 1}`);
};
