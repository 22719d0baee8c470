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
];
