import type { Migration } from '../domain/eventstore/migration.ts';

export const checkpointMigrations: readonly Migration[] = [
  {
    id: 'projections/0001_checkpoints',
    sql: `
      CREATE TABLE projection_checkpoints (
        name text PRIMARY KEY,
        -- the (transaction id, global position) pair of the last applied event
        tx bigint NOT NULL DEFAULT 0,
        seq bigint NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    // Where a read model stopped and why, for `loupe projections status` and other processes'
    // readiness: the runner writes it when an event cannot be applied and clears it on resuming.
    id: 'projections/0002_checkpoint_stops',
    sql: `
      ALTER TABLE projection_checkpoints
        ADD COLUMN stopped_event_id uuid,
        ADD COLUMN stopped_stream text,
        ADD COLUMN stopped_type text,
        ADD COLUMN stopped_tx bigint,
        ADD COLUMN stopped_seq bigint,
        ADD COLUMN stopped_error text,
        ADD COLUMN stopped_since timestamptz;
    `,
  },
];
