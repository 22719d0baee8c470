import type { Migration } from '../../domain/eventstore/migration.ts';

/**
 * The audit chain's tables. Not a read model: nothing rebuilds them (re-sealing a log would bless
 * whatever it holds now), so they are appended to only, under the same trigger discipline as the
 * log itself.
 */
export const auditMigrations: readonly Migration[] = [
  {
    id: 'audit/0001_seals',
    sql: `
      -- One row per sealed event, in global order. The three hashes beside the seal are what it
      -- covered, so verify can say what changed (data, metadata, or the event's header).
      CREATE TABLE audit_seals (
        tx bigint NOT NULL,
        seq bigint NOT NULL,
        ordinal bigint NOT NULL UNIQUE,
        event_id uuid NOT NULL,
        header_sha256 bytea NOT NULL,
        metadata_sha256 bytea NOT NULL,
        data_sha256 bytea NOT NULL,
        seal bytea NOT NULL,
        PRIMARY KEY (tx, seq)
      );
      -- The sealed head, recorded now and then: if events and their seals are cut off the end
      -- together, the newest checkpoint still says how far the chain went.
      CREATE TABLE audit_checkpoints (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tx bigint NOT NULL,
        seq bigint NOT NULL,
        ordinal bigint NOT NULL,
        seal bytea NOT NULL,
        key_id text NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE FUNCTION audit_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the audit chain is append-only (% refused)', TG_OP; END
      $$;
      CREATE TRIGGER audit_seals_append_only BEFORE UPDATE OR DELETE ON audit_seals
        FOR EACH ROW EXECUTE FUNCTION audit_is_append_only();
      CREATE TRIGGER audit_seals_no_truncate BEFORE TRUNCATE ON audit_seals
        FOR EACH STATEMENT EXECUTE FUNCTION audit_is_append_only();
      CREATE TRIGGER audit_checkpoints_append_only BEFORE UPDATE OR DELETE ON audit_checkpoints
        FOR EACH ROW EXECUTE FUNCTION audit_is_append_only();
      CREATE TRIGGER audit_checkpoints_no_truncate BEFORE TRUNCATE ON audit_checkpoints
        FOR EACH STATEMENT EXECUTE FUNCTION audit_is_append_only();
    `,
  },
];
