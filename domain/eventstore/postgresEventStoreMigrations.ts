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
  {
    // The one exception to append-only (domain/eventstore/types.ts, ContentRemoval): a removal
    // rewrites an event's data, in a transaction that set `loupe.removal` and appended the
    // removal record that names it. The trigger lets exactly that through: only data, data_bytes,
    // erased_by and data_sha256 change; erased_by points at a ContentRemoved record appended in
    // this same transaction; data_sha256 is computed here, from the ORIGINAL data (kept on a
    // second removal), so no caller can set it. Everything else (other columns, DELETE, TRUNCATE,
    // an UPDATE without the setting or without its record) is refused as before.
    id: 'eventstore/0003_removals',
    sql: `
      ALTER TABLE events ADD COLUMN erased_by bigint, ADD COLUMN data_sha256 text;
      CREATE OR REPLACE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'UPDATE'
            AND current_setting('loupe.removal', true) = 'on'
            AND NEW.global_position = OLD.global_position
            AND NEW.transaction_id = OLD.transaction_id
            AND NEW.event_id = OLD.event_id
            AND NEW.stream = OLD.stream
            AND NEW.revision = OLD.revision
            AND NEW.type = OLD.type
            AND NEW.schema_version = OLD.schema_version
            AND NEW.metadata = OLD.metadata
            AND NEW.recorded_at = OLD.recorded_at
            AND NEW.erased_by IS NOT NULL
            AND NEW.erased_by > OLD.global_position
            AND EXISTS (
              SELECT 1 FROM events r
              WHERE r.global_position = NEW.erased_by AND r.type = 'ContentRemoved' AND r.stream = 'removals'
                AND r.transaction_id = pg_current_xact_id())
          THEN
            NEW.data_sha256 := coalesce(OLD.data_sha256, encode(sha256(convert_to(OLD.data::text, 'UTF8')), 'hex'));
            RETURN NEW;
          END IF;
          RAISE EXCEPTION 'the event log is append-only (% refused)', TG_OP;
        END
      $$;
    `,
  },
];
