import { sql, type FragmentSqlToken } from 'slonik';

/**
 * Full-text search over a span's name, `input.value` and `output.value` (for LLM spans the latter
 * two hold the messages as OpenInference records them). A GIN index on a tsvector expression,
 * built into both PostgreSQL and PGlite (pg_trgm would need an extension loaded into PGlite, and
 * suits substrings, which `'x' in input.value` already covers by scanning): it finds a word among
 * a million spans without reading their text. The `simple` configuration lowercases and does not
 * stem, so it works the same for every language. Each text is cut to 100,000 characters: a
 * tsvector holds at most 1 MB, and a span over that must still be stored, just not searched whole.
 */
/** The index, as the tracing migration creates it; `spanTextMatches` writes the same expression. */
export const SPAN_TEXT_SEARCH_INDEX = `CREATE INDEX spans_text_search ON spans USING gin ((to_tsvector('simple'::regconfig,
  left(name, 1000) || ' ' ||
  left(coalesce(attributes ->> 'input.value', ''), 100000) || ' ' ||
  left(coalesce(attributes ->> 'output.value', ''), 100000))))`;

/**
 * `search` (web-search syntax: words, "a phrase", `or`, `-word`) matches the span `alias`. The
 * expression's text is the index's, column for column, or the planner could not use the index.
 */
export const spanTextMatches = (alias: string, search: string): FragmentSqlToken => {
  const c = (name: string) => sql.identifier([alias, name]);
  return sql.fragment`to_tsvector('simple'::regconfig,
    left(${c('name')}, 1000) || ' ' ||
    left(coalesce(${c('attributes')} ->> 'input.value', ''), 100000) || ' ' ||
    left(coalesce(${c('attributes')} ->> 'output.value', ''), 100000)) @@ websearch_to_tsquery('simple'::regconfig, ${search})`;
};
