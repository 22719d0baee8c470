import type { Migration } from '../../domain/eventstore/migration.ts';

export const reactorMigrations: readonly Migration[] = [
  {
    id: 'reactors/0001_checkpoints',
    sql: `
      CREATE TABLE reactor_checkpoints (
        name text PRIMARY KEY,
        -- the (transaction id, global position) pair of the last event reacted to
        tx bigint NOT NULL DEFAULT 0,
        seq bigint NOT NULL DEFAULT 0,
        -- when the schedule last ran (null: never)
        scheduled_at timestamptz,
        -- the last failure, cleared by the next success
        error text,
        error_since timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
];
