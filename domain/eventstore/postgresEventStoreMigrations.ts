import type { Migration } from './migration.ts';

export const postgresEventStoreMigrations: readonly Migration[] = [
  {
    id: 'eventstore/0001_events',
    sql: `
      CREATE TABLE events (
        global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        -- Readers order by (transaction_id, global_position) and only read below the oldest
        -- running transaction, so an event whose transaction commits late is never skipped.
        transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
        event_id uuid NOT NULL UNIQUE,
        stream text NOT NULL,
        revision integer NOT NULL,
        type text NOT NULL,
        schema_version integer NOT NULL DEFAULT 1,
        -- json, not jsonb: the text is stored as sent, without being re-parsed into jsonb's binary
        -- form. Nothing queries inside event data, and for 2.5 MB span batches the parse was the
        -- append's largest cost (measured: json parses ~1.7x faster than jsonb).
        data json NOT NULL,
        metadata jsonb NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (stream, revision)
      );
      CREATE INDEX events_global_order ON events (transaction_id, global_position);
      CREATE INDEX events_type ON events (type);
      CREATE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the event log is append-only (% refused)', TG_OP; END
      $$;
      CREATE TRIGGER events_no_update_or_delete BEFORE UPDATE OR DELETE ON events
        FOR EACH ROW EXECUTE FUNCTION events_are_append_only();
      CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
        FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
    `,
  },
  {
    // Projections bound a batch by the bytes of event data they read (projections/readBatch.ts).
    // octet_length(data::text) decompresses the whole value to measure it (json has no
    // binary-coercible cast to text), which cost as much as reading the events a second time:
    // the size is now stored with the event. Events appended before this migration have none
    // and are measured the old way. lz4: a 2.5 MB span batch compresses about 2.5x faster than
    // with pglz and decompresses several times faster, on every append and every read of the log
    // (BENCHMARKS.md §1). PGlite is built without lz4 and keeps pglz. Both changes apply to rows
    // written from now on; no existing row is rewritten.
    id: 'eventstore/0002_event_sizes_lz4',
    sql: `
      ALTER TABLE events ADD COLUMN data_bytes integer;
      DO $$ BEGIN
        ALTER TABLE events ALTER COLUMN data SET COMPRESSION lz4;
      EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN NULL;
      END $$;
    `,
  },
];
