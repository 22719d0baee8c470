import { sql, StatementTimeoutError, type CommonQueryMethods, type DatabasePool } from 'slonik';
import { z } from 'zod';

/** How long one filtered list query may run before it is cancelled. */
export const FILTER_STATEMENT_TIMEOUT_MS = 10_000;

/** A filtered list that ran out of time: answered 422 with what to do, like an unreadable filter. */
export class FilterTimeoutError extends Error {
  readonly status = 422;
  readonly code = 'filter_timeout';
  readonly expose = true;
  constructor() {
    super(
      `the filter took longer than ${FILTER_STATEMENT_TIMEOUT_MS / 1000} s and was stopped; narrow it (a time range, a span kind, an exact attribute) and retry`,
    );
  }
}

const limitStatement = (db: CommonQueryMethods, ms: number) =>
  db.query(sql.unsafe`SELECT set_config('statement_timeout', ${String(ms)}, true)`);

/**
 * Whether a search holds a word rarer than every word the text index's statistics track (ANALYZE
 * keeps the most common words of `span_search.words`; per week, spanPartitions.ts, and for the
 * whole table when it is analysed itself, which autovacuum never does: any of them counts). The planner estimates such a word as if it
 * were as common as the rarest tracked one; for a word only a few spans hold it then walks the
 * project's spans newest first, testing each, and reads all of them (over 10 s at a million
 * spans), where the index finds them in milliseconds. A common word is the other way round: the
 * walk stops after a page, and reading every match from the index would not. Without statistics
 * (never analysed) the planner is left to itself.
 */
const holdsUntrackedWord = async (db: CommonQueryMethods, search: string): Promise<boolean> =>
  db.oneFirst(sql.type(z.object({ rare: z.boolean() }))`
    WITH tracked AS (
      SELECT array_agg(DISTINCT w) AS words FROM pg_stats, unnest(most_common_elems::text::text[]) AS w
      WHERE (tablename = 'span_search' OR tablename LIKE 'span_search_%') AND attname = 'words' AND most_common_elems IS NOT NULL
    )
    SELECT EXISTS (
      SELECT 1 FROM tracked, unnest(tsvector_to_array(to_tsvector('simple'::regconfig, ${search}))) AS word
      WHERE tracked.words IS NOT NULL AND NOT word = ANY(tracked.words)
    ) AS rare`);

/**
 * Runs a list query whose conditions a user wrote under a statement timeout, so no expression can
 * run unbounded. With no user conditions it runs as before. A `search` holding a word the
 * statistics do not track runs with index scans in time order turned off, so the planner takes
 * the text index (bitmap scans) and sorts the few matches. PGlite has no statement timeout and no
 * way to cancel a running statement: there the limits on the expression's length and nesting are
 * what bounds it, and since it runs in its own worker thread a slow filter no longer holds the
 * server's (BENCHMARKS.md §19c gives the slowest filters measured).
 */
export const boundedQuery = async <T>(
  pool: DatabasePool,
  userConditions: readonly unknown[],
  options: { readonly search?: string | null },
  query: (db: CommonQueryMethods) => Promise<T>,
): Promise<T> => {
  if (userConditions.length === 0) return query(pool);
  try {
    return await pool.transaction(async (tx) => {
      await limitStatement(tx, FILTER_STATEMENT_TIMEOUT_MS);
      const search = options.search?.trim();
      if (search && (await holdsUntrackedWord(tx, search))) {
        await tx.query(sql.unsafe`SELECT set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true)`);
      }
      return query(tx);
    });
  } catch (error) {
    if (error instanceof StatementTimeoutError) throw new FilterTimeoutError();
    throw error;
  }
};
