import { sql, type FragmentSqlToken } from 'slonik';

/** What the trace, span and session lists sort by (besides their row-id order). */
export type SortColumn = 'start_time' | 'latency_ms' | 'cost_total';

/**
 * A sort column of `alias` (`t` traces, `s` spans or sessions) as an expression and its SQL type,
 * for keyset paging: `(key, id) <= (cursor's key, cursor id)`. A cost is null when nothing of the
 * row is priced; such rows come last in both directions, so the key maps null to the end of the
 * order (`-Infinity` descending, `Infinity` ascending, costs are never negative) and stays a plain
 * value a row comparison and an index can use.
 */
export const sortKey = (alias: 't' | 's', by: SortColumn, order: 'asc' | 'desc'): { key: FragmentSqlToken; type: FragmentSqlToken } => {
  const column = (name: string) => sql.identifier([alias, name]);
  if (by === 'latency_ms') return { key: sql.fragment`(${column('end_time')} - ${column('start_time')})`, type: sql.fragment`interval` };
  if (by === 'cost_total') {
    const last = order === 'desc' ? sql.fragment`'-Infinity'::float8` : sql.fragment`'Infinity'::float8`;
    return { key: sql.fragment`coalesce(${column('cost_total')}, ${last})`, type: sql.fragment`float8` };
  }
  return { key: sql.fragment`${column('start_time')}`, type: sql.fragment`timestamptz` };
};
