import { sql, type DatabasePool } from 'slonik';

/**
 * The read models' tables an erasure deletes rows from. Deleted rows stay in the table files until
 * vacuumed, and PGlite never autovacuums: a hostile run found them there. Plain VACUUM only marks
 * their space free: the bytes stay in the page until a new row reuses the space (measured: a
 * deleted session's text was still in the `spans` and `sessions` files after it). VACUUM FULL
 * rewrites the tables into new files and drops the old ones, but locks them while it runs, so it
 * is used where that is cheap and asked for: an erasure (a person's data) on PGlite, a single
 * process with small tables. Retention, and PostgreSQL (where autovacuum runs and the tables may
 * be large and shared by several processes), get plain VACUUM.
 */
const TOUCHED = [
  'spans',
  // A deleted span's full-text search words (their rows go with it, projections/tracing/spanTextSearch.ts).
  'span_search',
  'traces',
  'sessions',
  'tracing_erasures',
  'annotations',
  'annotation_span_scope',
  'annotation_trace_scope',
  // Found missing by bench:retention (BENCHMARKS.md §20): a removed session's scope rows, and the
  // metrics rollup a deleted trace is taken out of (its rows updated or deleted), were never vacuumed.
  'annotation_session_scope',
  'trace_metric_hours',
  'trace_latency_hours',
  'trace_latency_days',
];

export const vacuumAfterErasure = async (pool: DatabasePool, full: boolean): Promise<void> => {
  await pool.query(
    sql.unsafe`VACUUM ${full ? sql.fragment`FULL` : sql.fragment``} ${sql.join(
      TOUCHED.map((t) => sql.identifier([t])),
      sql.fragment`, `,
    )}`,
  );
};
