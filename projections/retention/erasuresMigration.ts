import type { Migration } from '../../domain/eventstore/migration.ts';

/**
 * The erasure work's part of the tracing read model's migrations (listed, in order, in
 * projections/tracing/tracingMigrations.ts: the deletion that takes the rows records the work in its transaction).
 */
export const erasuresMigration: Migration = {
  // Erasure reaches the log (projections/retention/erasureReactor.ts): each span row names the
  // SpansIngested event it came from, and a deletion records, in the transaction that deletes
  // the rows, which spans of which events it took (tracing_erasures). The erasure reactor reads
  // that after the deletion is applied, rewrites those events, and the ContentRemoved record
  // clears the rows again. Spans stored before this migration have no source: a rebuild of the
  // tracing read model fills it in.
  id: 'tracing/0006_erasures',
  sql: `
    ALTER TABLE spans ADD COLUMN source_event uuid;
    CREATE TABLE tracing_erasures (
      deletion_event uuid NOT NULL,
      source_event uuid NOT NULL,
      span_id text NOT NULL,
      trace_id text NOT NULL,
      session_id text,
      PRIMARY KEY (deletion_event, source_event, span_id)
    );
  `,
};
