import { sql, type FragmentSqlToken } from 'slonik';

/**
 * Full-text search over a span's name, `input.value` and `output.value` (for LLM spans the latter
 * two hold the messages as OpenInference records them). Each span's words are a tsvector in a
 * table of their own, `span_search`, with a GIN index: it finds a word among a million spans
 * without reading their text. Both are built into PostgreSQL and PGlite (pg_trgm would need an
 * extension loaded into PGlite, and suits substrings, which `'x' in input.value` already covers by
 * scanning). The `simple` configuration lowercases and does not stem, so it works the same for
 * every language.
 *
 * The words are not written with the span: parsing a span's text and adding its words to a GIN
 * index cost four times what the rest of its row does (BENCHMARKS.md §22), so they are written by
 * `indexSpanSearch` behind the tracing projection, and search trails ingest by a moment (up to
 * `MAX_DEFER_MS` while the projection is busy). Rows go with their span (ON DELETE CASCADE), so
 * deletion, erasure and retention, which delete spans, take the words too; a rebuild swaps in an
 * empty table that the indexer fills again.
 */
export const SPAN_SEARCH_MIGRATION = `
  CREATE TABLE span_search (
    span_rowid bigint PRIMARY KEY REFERENCES spans (id) ON DELETE CASCADE,
    words tsvector NOT NULL
  );
  CREATE INDEX span_search_words ON span_search USING gin (words);
  DROP INDEX IF EXISTS spans_text_search;
`;

/**
 * How much of each text is searched. A tsvector holds at most 1 MB, and a span's text is parsed
 * whole: past these lengths a span is still stored whole, just not searched whole.
 */
export const SEARCHED_NAME_CHARS = 1000;
export const SEARCHED_TEXT_CHARS = 100_000;

/** The words of the span `alias`, as the indexer stores them. */
export const spanWords = (alias: string): FragmentSqlToken => {
  const c = (name: string) => sql.identifier([alias, name]);
  return sql.fragment`to_tsvector('simple'::regconfig,
    left(${c('name')}, ${SEARCHED_NAME_CHARS}) || ' ' ||
    left(coalesce(${c('attributes')} ->> 'input.value', ''), ${SEARCHED_TEXT_CHARS}) || ' ' ||
    left(coalesce(${c('attributes')} ->> 'output.value', ''), ${SEARCHED_TEXT_CHARS}))`;
};

/** `search` (web-search syntax: words, "a phrase", `or`, `-word`) matches the span `alias`. */
export const spanTextMatches = (alias: string, search: string): FragmentSqlToken =>
  sql.fragment`EXISTS (SELECT 1 FROM span_search w WHERE w.span_rowid = ${sql.identifier([alias, 'id'])}
    AND w.span_start = ${sql.identifier([alias, 'start_time'])}
    AND w.words @@ websearch_to_tsquery('simple'::regconfig, ${search}))`;
