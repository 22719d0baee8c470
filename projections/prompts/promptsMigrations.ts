import type { Migration } from '../../domain/eventstore/migration.ts';

/**
 * The prompts read model. Events name prompts and versions by uuid; the integer ids of the wire
 * (`Prompt:3`, `PromptVersion:7`, `PromptVersionTag:2`) are handed out here from `prompt_ids`, in
 * log order and only when a row is first inserted, so a rebuild hands out the same ones.
 */
export const promptsMigrations: readonly Migration[] = [
  {
    id: 'prompts/0001_tables',
    sql: `
      CREATE TABLE prompt_ids (kind text PRIMARY KEY, last bigint NOT NULL);
      INSERT INTO prompt_ids (kind, last) VALUES ('prompt', 0), ('version', 0), ('tag', 0);

      CREATE TABLE prompts (
        id bigint PRIMARY KEY,
        prompt_id uuid NOT NULL UNIQUE,
        name text NOT NULL UNIQUE,
        description text,
        metadata jsonb NOT NULL,
        source_prompt_id uuid,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );

      CREATE TABLE prompt_versions (
        id bigint PRIMARY KEY,
        version_id uuid NOT NULL UNIQUE,
        prompt_id uuid NOT NULL,
        description text,
        model_provider text NOT NULL,
        model_name text NOT NULL,
        template_type text NOT NULL,
        template_format text NOT NULL,
        template jsonb NOT NULL,
        invocation_parameters jsonb NOT NULL,
        tools jsonb,
        response_format jsonb,
        -- the event's actor: user:<id>, apikey:<id>, system
        actor text NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX prompt_versions_prompt ON prompt_versions (prompt_id, id);

      -- A tag name is unique per prompt and points at one of its versions.
      CREATE TABLE prompt_version_tags (
        id bigint PRIMARY KEY,
        prompt_id uuid NOT NULL,
        name text NOT NULL,
        version_id uuid NOT NULL,
        description text,
        UNIQUE (prompt_id, name)
      );
      CREATE INDEX prompt_version_tags_version ON prompt_version_tags (version_id, id);

      CREATE TABLE prompt_labels (
        id bigint PRIMARY KEY,
        name text NOT NULL UNIQUE,
        color text,
        description text
      );
      CREATE TABLE prompt_label_links (
        prompt_id uuid NOT NULL,
        label_id bigint NOT NULL,
        PRIMARY KEY (prompt_id, label_id)
      );
      CREATE INDEX prompt_label_links_label ON prompt_label_links (label_id);
    `,
  },
];
