import type { Migration } from '../../domain/eventstore/migration.ts';
import { SCORED_TARGETS_BACKFILL, SCORED_TARGETS_INDEX, SCORED_TARGETS_MIGRATION } from './targetStart.ts';

/**
 * The annotations read model. Annotations are keyed by their target's OpenTelemetry id (or
 * session id), never by a tracing row id: an annotation may arrive before its target. The
 * `annotation_*_scope` tables are this model's own record of which spans, traces and sessions
 * exist and in which project (from `SpansIngested` and the project events), so a deletion of a
 * span, trace, session or project finds its annotations from the log alone: a rebuild of this
 * model alone gives the same rows as the live run, whatever state the tracing tables are in.
 * Row ids (`id`, the integer in `SpanAnnotation:42`) come from `annotation_ids` in log order.
 */
export const annotationsMigrations: readonly Migration[] = [
  {
    id: 'annotations/0001_tables',
    sql: `
      CREATE TABLE annotation_ids (kind text PRIMARY KEY, last bigint NOT NULL);
      INSERT INTO annotation_ids (kind, last) VALUES ('annotation', 0);

      CREATE TABLE annotation_project_scope (project_id uuid PRIMARY KEY);
      -- A trace keeps the project it was created in, and the first session id seen for it.
      CREATE TABLE annotation_trace_scope (trace_id text PRIMARY KEY, project_id uuid NOT NULL, session_id text);
      CREATE INDEX annotation_trace_scope_project ON annotation_trace_scope (project_id);
      CREATE INDEX annotation_trace_scope_session ON annotation_trace_scope (session_id) WHERE session_id IS NOT NULL;
      CREATE TABLE annotation_span_scope (span_id text PRIMARY KEY, trace_id text NOT NULL);
      CREATE INDEX annotation_span_scope_trace ON annotation_span_scope (trace_id);
      -- A session belongs to the project of the trace that brought it.
      CREATE TABLE annotation_session_scope (session_id text PRIMARY KEY, project_id uuid NOT NULL);
      CREATE INDEX annotation_session_scope_project ON annotation_session_scope (project_id);
      -- Who an API key acts for: an annotation made with a user key is that user's.
      CREATE TABLE annotation_key_owners (key_id text PRIMARY KEY, user_id text);

      CREATE TABLE annotations (
        id bigint PRIMARY KEY,
        -- sha256 of (target, target_id, document_position, name, identifier): the upsert key,
        -- hashed because the five together can exceed what a btree row holds
        key text NOT NULL UNIQUE,
        target text NOT NULL,
        target_id text NOT NULL,
        document_position integer,
        name text NOT NULL,
        identifier text NOT NULL,
        annotator_kind text NOT NULL,
        label text,
        score double precision,
        explanation text,
        metadata jsonb NOT NULL,
        source text NOT NULL,
        -- the event's actor (user:<id>, apikey:<id>, system, anonymous) and the user it stands for
        actor text NOT NULL,
        user_id text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX annotations_target ON annotations (target, target_id);
      CREATE INDEX annotations_name ON annotations (target, name);

      CREATE TABLE annotation_configs (
        id bigint PRIMARY KEY,
        name text NOT NULL UNIQUE,
        type text NOT NULL,
        description text,
        optimization_direction text,
        "values" jsonb,
        lower_bound double precision,
        upper_bound double precision,
        threshold double precision
      );
      CREATE TABLE project_annotation_configs (
        project_id uuid NOT NULL,
        config_id bigint NOT NULL,
        PRIMARY KEY (project_id, config_id)
      );
      CREATE INDEX project_annotation_configs_config ON project_annotation_configs (config_id);
    `,
  },
  {
    // Listing by identifier alone (an evaluation run's annotations) must not scan every annotation.
    id: 'annotations/0002_identifier_index',
    sql: `CREATE INDEX annotations_identifier ON annotations (target, identifier) WHERE identifier <> '';`,
  },
  {
    // The metrics page's score series reads annotations by their target's project and start time
    // alone (targetStart.ts says why), filled here for the targets there are.
    id: 'annotations/0003_target_start',
    sql: `${SCORED_TARGETS_MIGRATION}${SCORED_TARGETS_BACKFILL}${SCORED_TARGETS_INDEX}`,
  },
];
