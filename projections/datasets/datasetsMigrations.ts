import type { Migration } from '../../domain/eventstore/migration.ts';

/**
 * The datasets read model. Events name datasets, versions and examples by uuid; the integer ids of
 * the wire (`Dataset:3`, `DatasetVersion:7`, `DatasetExample:12`) are handed out here from
 * `dataset_ids`, in log order and only when a row is first inserted, so a rebuild hands out the
 * same ones. An example's content lives in its revisions: one per version that created, patched or
 * deleted it; the examples at a version are each example's latest revision up to that version.
 */
export const datasetsMigrations: readonly Migration[] = [
  {
    id: 'datasets/0001_tables',
    sql: `
      CREATE TABLE dataset_ids (kind text PRIMARY KEY, last bigint NOT NULL);
      INSERT INTO dataset_ids (kind, last) VALUES ('dataset', 0), ('version', 0), ('example', 0);

      CREATE TABLE datasets (
        id bigint PRIMARY KEY,
        dataset_id uuid NOT NULL UNIQUE,
        name text NOT NULL UNIQUE,
        description text,
        metadata jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );

      CREATE TABLE dataset_versions (
        id bigint PRIMARY KEY,
        version_id uuid NOT NULL UNIQUE,
        dataset_id uuid NOT NULL,
        description text,
        metadata jsonb NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX dataset_versions_dataset ON dataset_versions (dataset_id, id);

      CREATE TABLE dataset_examples (
        id bigint PRIMARY KEY,
        example_id uuid NOT NULL UNIQUE,
        dataset_id uuid NOT NULL,
        external_id text,
        span_id text,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX dataset_examples_dataset ON dataset_examples (dataset_id, id);

      -- kind: CREATE, PATCH, DELETE; version_row is dataset_versions.id
      CREATE TABLE dataset_example_revisions (
        example_id uuid NOT NULL,
        version_row bigint NOT NULL,
        dataset_id uuid NOT NULL,
        kind text NOT NULL,
        input jsonb NOT NULL,
        output jsonb NOT NULL,
        metadata jsonb NOT NULL,
        hash text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (example_id, version_row)
      );
      CREATE INDEX dataset_example_revisions_dataset ON dataset_example_revisions (dataset_id, version_row);

      -- An upload's examples until the version that takes them in (then they move to the tables above).
      CREATE TABLE dataset_staged_examples (
        upload_id uuid NOT NULL,
        seq integer NOT NULL,
        pos integer NOT NULL,
        example_id uuid NOT NULL,
        external_id text,
        span_id text,
        input jsonb NOT NULL,
        output jsonb NOT NULL,
        metadata jsonb NOT NULL,
        splits jsonb NOT NULL,
        hash text NOT NULL,
        PRIMARY KEY (upload_id, seq, pos)
      );

      CREATE TABLE dataset_labels (
        id bigint PRIMARY KEY,
        name text NOT NULL UNIQUE,
        color text NOT NULL,
        description text
      );
      CREATE TABLE dataset_label_links (
        dataset_id uuid NOT NULL,
        label_id bigint NOT NULL,
        PRIMARY KEY (dataset_id, label_id)
      );
      CREATE INDEX dataset_label_links_label ON dataset_label_links (label_id);

      CREATE TABLE dataset_splits (
        id bigint PRIMARY KEY,
        name text NOT NULL UNIQUE,
        description text,
        color text NOT NULL,
        metadata jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE TABLE dataset_split_examples (
        split_id bigint NOT NULL,
        example_id uuid NOT NULL,
        PRIMARY KEY (split_id, example_id)
      );
      CREATE INDEX dataset_split_examples_example ON dataset_split_examples (example_id);
    `,
  },
  {
    id: 'datasets/0002_experiment_tags',
    sql: `
      INSERT INTO dataset_ids (kind, last) VALUES ('tag', 0);
      -- A tag name is unique per dataset and names one of its experiments.
      CREATE TABLE dataset_experiment_tags (
        id bigint PRIMARY KEY,
        dataset_id uuid NOT NULL,
        name text NOT NULL,
        experiment_id uuid NOT NULL,
        description text,
        UNIQUE (dataset_id, name)
      );
      CREATE INDEX dataset_experiment_tags_experiment ON dataset_experiment_tags (experiment_id);
    `,
  },
];
