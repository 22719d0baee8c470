import { sql, type FragmentSqlToken } from 'slonik';
import { spanTextMatches } from '../tracing/spanTextSearch.ts';
import { compileFilter, type FilterSubject } from './compileFilter.ts';
import { FilterError, parseFilter } from '../../domain/filters/filterSyntax.ts';

/** A search is typed by a person too; longer ones are refused like long filters. */
export const MAX_SEARCH_LENGTH = 500;

const searchCondition = (subject: FilterSubject, search: string): FragmentSqlToken => {
  if (search.length > MAX_SEARCH_LENGTH) {
    throw new FilterError(MAX_SEARCH_LENGTH, `a search of at most ${MAX_SEARCH_LENGTH} characters`, `${search.length} characters`);
  }
  if (search.includes('\0')) throw new FilterError(search.indexOf('\0'), 'a search without NUL characters', 'a NUL character');
  if (subject === 'span') return spanTextMatches('s', search);
  // A trace or a session matches when one of its spans does.
  return subject === 'trace'
    ? sql.fragment`EXISTS (SELECT 1 FROM spans x WHERE x.trace_rowid = t.id AND ${spanTextMatches('x', search)})`
    : sql.fragment`EXISTS (SELECT 1 FROM traces st JOIN spans x ON x.trace_rowid = st.id WHERE st.session_id = s.id AND ${spanTextMatches('x', search)})`;
};

/**
 * The SQL conditions of a list's `filter` (the filter language) and `search` (full text), either
 * absent or blank for none. Throws FilterError (422) for a filter that cannot be read.
 */
export const filterConditions = (
  subject: FilterSubject,
  q: { readonly filter?: string | null; readonly search?: string | null },
): FragmentSqlToken[] => [
  ...(q.filter?.trim() ? [compileFilter(parseFilter(q.filter), subject)] : []),
  ...(q.search?.trim() ? [searchCondition(subject, q.search.trim())] : []),
];
