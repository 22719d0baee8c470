import type { Migration } from '../../domain/eventstore/migration.ts';

/** The evaluators read model: definitions, their use on projects, and failed evaluations. */
export const evaluatorsMigrations: readonly Migration[] = [
  {
    id: 'evaluators/0001_tables',
    sql: `
      CREATE TABLE evaluators (
        id bigint PRIMARY KEY,
        name text NOT NULL UNIQUE,
        kind text NOT NULL,
        description text,
        -- the definition as its event carries it (camelCase), for the API to render
        definition jsonb NOT NULL,
        version integer NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE TABLE project_evaluators (
        id bigint PRIMARY KEY,
        evaluator_id bigint NOT NULL,
        project_id uuid NOT NULL,
        target text NOT NULL,
        sampling_rate double precision NOT NULL,
        filter text NOT NULL,
        input_mapping jsonb NOT NULL,
        annotation_name text,
        delay_seconds integer NOT NULL,
        enabled boolean NOT NULL,
        -- the last row of its target's table (spans, traces, sessions) when it was set or retargeted:
        -- it judges what arrives after that (a backfill judges what came before)
        start_after_rowid bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX project_evaluators_project ON project_evaluators (project_id, id);
      CREATE INDEX project_evaluators_evaluator ON project_evaluators (evaluator_id);
      CREATE TABLE dataset_evaluators (
        id bigint PRIMARY KEY,
        evaluator_id bigint NOT NULL,
        dataset_id uuid NOT NULL,
        input_mapping jsonb NOT NULL,
        annotation_name text,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX dataset_evaluators_dataset ON dataset_evaluators (dataset_id, id);
      CREATE INDEX dataset_evaluators_evaluator ON dataset_evaluators (evaluator_id);
      -- one row per evaluation that could not be judged (its stream refuses a second outcome)
      CREATE TABLE evaluation_failures (
        attachment_id bigint NOT NULL,
        version integer NOT NULL,
        target text NOT NULL,
        target_id text NOT NULL,
        evaluator_id bigint NOT NULL,
        project_id uuid NOT NULL,
        error text NOT NULL,
        attempts integer NOT NULL,
        failed_at timestamptz NOT NULL,
        PRIMARY KEY (attachment_id, version, target, target_id)
      );
      CREATE INDEX evaluation_failures_evaluator ON evaluation_failures (evaluator_id, failed_at DESC);
    `,
  },
  {
    // The failure's event, so that its row forgets the error text when an erasure rewrites the event.
    id: 'evaluators/0002_failure_events',
    sql: `ALTER TABLE evaluation_failures ADD COLUMN event_id text;
      CREATE INDEX evaluation_failures_event ON evaluation_failures (event_id);`,
  },
];
