import type { Migration } from '../../domain/eventstore/migration.ts';

/**
 * The experiments read model: experiments, the examples each runs over (named in its creation
 * event), runs (one row per example and repetition: a failed run is replaced by the next) and
 * evaluations (one per run and name, upserted). Integer wire ids are handed out in log order.
 */
export const experimentsMigrations: readonly Migration[] = [
  {
    id: 'experiments/0001_tables',
    sql: `
      CREATE TABLE experiment_ids (kind text PRIMARY KEY, last bigint NOT NULL);
      INSERT INTO experiment_ids (kind, last) VALUES ('experiment', 0), ('run', 0), ('evaluation', 0);

      CREATE TABLE experiments (
        id bigint PRIMARY KEY,
        experiment_id uuid NOT NULL UNIQUE,
        dataset_id uuid NOT NULL,
        version_id uuid NOT NULL,
        name text NOT NULL,
        description text,
        metadata jsonb NOT NULL,
        repetitions integer NOT NULL,
        project_name text NOT NULL,
        example_count integer NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX experiments_dataset ON experiments (dataset_id, id);

      CREATE TABLE experiment_examples (
        experiment_id uuid NOT NULL,
        example_id uuid NOT NULL,
        PRIMARY KEY (experiment_id, example_id)
      );

      CREATE TABLE experiment_runs (
        id bigint PRIMARY KEY,
        run_id uuid NOT NULL UNIQUE,
        experiment_id uuid NOT NULL,
        example_id uuid NOT NULL,
        repetition integer NOT NULL,
        output jsonb,
        start_time timestamptz NOT NULL,
        end_time timestamptz NOT NULL,
        trace_id text,
        error text,
        UNIQUE (experiment_id, example_id, repetition)
      );
      CREATE INDEX experiment_runs_experiment ON experiment_runs (experiment_id, id);

      CREATE TABLE experiment_evaluations (
        id bigint PRIMARY KEY,
        run_id uuid NOT NULL,
        experiment_id uuid NOT NULL,
        name text NOT NULL,
        annotator_kind text NOT NULL,
        label text,
        score double precision,
        explanation text,
        error text,
        metadata jsonb NOT NULL,
        trace_id text,
        start_time timestamptz NOT NULL,
        end_time timestamptz NOT NULL,
        UNIQUE (run_id, name)
      );
      CREATE INDEX experiment_evaluations_experiment ON experiment_evaluations (experiment_id);
    `,
  },
];
