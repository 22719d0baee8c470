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
 * Runs a list query whose conditions a user wrote under a statement timeout, so no expression can
 * run unbounded. With no user conditions it runs as before. PGlite runs statements on the
 * server's own thread and has no timer to cancel one with: there the limits on the expression's
 * length and nesting are what bounds it (BENCHMARKS.md gives the slowest filters measured).
 */
export const boundedQuery = async <T>(
  pool: DatabasePool,
  userConditions: readonly unknown[],
  query: (db: CommonQueryMethods) => Promise<T>,
): Promise<T> => {
  if (userConditions.length === 0) return query(pool);
  try {
    return await pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`SELECT set_config('statement_timeout', ${String(FILTER_STATEMENT_TIMEOUT_MS)}, true)`);
      return query(tx);
    });
  } catch (error) {
    if (error instanceof StatementTimeoutError) throw new FilterTimeoutError();
    throw error;
  }
};
