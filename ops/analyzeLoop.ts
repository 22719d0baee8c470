import type { Logger } from 'pino';
import { sql, type DatabasePool } from 'slonik';
import { repeatWithoutOverlap } from './repeatWithoutOverlap.ts';

/**
 * Keeps planner statistics fresh. Embedded PGlite runs single-user and never autovacuums, and
 * without statistics the span filters fall back from index walks to sorting every match
 * (measured at 1M spans: span_kind p95 1.2 s without, 27 ms with; BENCHMARKS.md §2). ANALYZE
 * samples a bounded number of rows, so running it now and then costs little.
 */
export const startAnalyzeLoop = (
  pool: DatabasePool,
  logger: Logger,
  { firstAfterMs = 60_000, intervalMs = 10 * 60_000 } = {},
): (() => void) =>
  repeatWithoutOverlap(() => pool.query(sql.unsafe`ANALYZE`), { everyMs: intervalMs, firstAfterMs, logger, failure: 'ANALYZE failed' });
