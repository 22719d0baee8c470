import { sql, StatementTimeoutError, type CommonQueryMethods, type DatabasePool } from 'slonik';

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

/**
 * How long the planner's own plan may run before the query is tried again on the indexes alone.
 * A search for a word the statistics have never seen is estimated as common: the planner then
 * walks the project's spans newest first, testing each, and for a word one span holds reads all
 * of them (over 10 s at a million spans). The retry answers it from the text index in milliseconds.
 */
export const FIRST_PLAN_TIMEOUT_MS = 150;

const limitStatement = (db: CommonQueryMethods, ms: number) =>
  db.query(sql.unsafe`SELECT set_config('statement_timeout', ${String(ms)}, true)`);

/**
 * Runs a list query whose conditions a user wrote under a statement timeout, so no expression can
 * run unbounded. With no user conditions it runs as before. The planner's plan gets
 * FIRST_PLAN_TIMEOUT_MS; when it runs out, the same query runs again with index scans in time
 * order turned off (bitmap scans of the GIN indexes for text, attributes and annotations, then the
 * newest first of what they found) under the full FILTER_STATEMENT_TIMEOUT_MS. The answer is the
 * same either way; only the plan differs. PGlite runs statements on the server's own thread and has
 * no timer to cancel one with: there the limits on the expression's length and nesting are what
 * bounds it (BENCHMARKS.md gives the slowest filters measured).
 */
export const boundedQuery = async <T>(
  pool: DatabasePool,
  userConditions: readonly unknown[],
  query: (db: CommonQueryMethods) => Promise<T>,
): Promise<T> => {
  if (userConditions.length === 0) return query(pool);
  try {
    return await pool.transaction(async (tx) => {
      await limitStatement(tx, FIRST_PLAN_TIMEOUT_MS);
      try {
        // A savepoint: a cancelled statement must not abort the transaction the retry runs in.
        return await tx.transaction((first) => query(first));
      } catch (error) {
        if (!(error instanceof StatementTimeoutError)) throw error;
      }
      await tx.query(sql.unsafe`SELECT set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true)`);
      await limitStatement(tx, FILTER_STATEMENT_TIMEOUT_MS);
      return query(tx);
    });
  } catch (error) {
    if (error instanceof StatementTimeoutError) throw new FilterTimeoutError();
    throw error;
  }
};
