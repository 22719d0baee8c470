import { SPAN_SEARCH_MIGRATION } from './spanTextSearch.ts';
import { DAY_ROLLUP_BACKFILL, DAY_ROLLUP_MIGRATION, TRACE_ROLLUP_BACKFILL, TRACE_ROLLUP_MIGRATION } from '../metrics/traceRollup.ts';
import type { Migration } from '../../domain/eventstore/migration.ts';
import { projectAccessMigration } from '../projects/projectAccessMigration.ts';
import { erasuresMigration } from '../retention/erasuresMigration.ts';
import { costsMigration } from '../prices/costsMigration.ts';
import { attributeIndexOf } from './attributeFilter.ts';
import { SPAN_PARTITIONS_MIGRATION } from './spanPartitions.ts';

/**
 * The tracing read model. Row ids (`id`) are the integers inside the REST GlobalIDs
 * (`Span:42`); they are handed out by the projector from `tracing_ids` in log order, never by a
 * sequence, so a rebuild gives every row the same id again (a sequence also advances in rolled
 * back transactions and on ON CONFLICT DO NOTHING).
 * Names are unqualified: a rebuild creates these tables in a scratch schema.
 * One read model with one checkpoint, but features own their parts: the prices' and cost jobs'
 * tables (projections/prices/), the erasure work (projections/retention/), project access
 * (projections/projects/) and the metric rollups (projections/metrics/traceRollup.ts); listed here
 * in the order they ran.
 */
export const tracingMigrations: readonly Migration[] = [
  {
    id: 'tracing/0001_tables',
    sql: `
      CREATE TABLE tracing_ids (kind text PRIMARY KEY, last bigint NOT NULL);
      INSERT INTO tracing_ids (kind, last) VALUES ('project', 0), ('trace', 0), ('span', 0), ('session', 0);

      CREATE TABLE projects (
        id bigint PRIMARY KEY,
        project_id uuid NOT NULL UNIQUE,
        name text NOT NULL UNIQUE,
        description text,
        gradient_start_color text NOT NULL,
        gradient_end_color text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );

      -- A session belongs to the project of the trace that created it; session ids are global.
      CREATE TABLE sessions (
        id bigint PRIMARY KEY,
        session_id text NOT NULL UNIQUE,
        project_id bigint NOT NULL,
        start_time timestamptz NOT NULL,
        end_time timestamptz NOT NULL,
        trace_count integer NOT NULL DEFAULT 0,
        token_count_prompt bigint NOT NULL DEFAULT 0,
        token_count_completion bigint NOT NULL DEFAULT 0,
        first_input text,
        first_input_mime_type text,
        last_output text,
        last_output_mime_type text
      );
      CREATE INDEX sessions_project ON sessions (project_id, id);

      -- Trace ids are global: later spans of a trace join it whatever project they were sent to.
      CREATE TABLE traces (
        id bigint PRIMARY KEY,
        trace_id text NOT NULL UNIQUE,
        project_id bigint NOT NULL,
        session_id bigint,
        start_time timestamptz NOT NULL,
        end_time timestamptz NOT NULL,
        root_span_id text,
        span_count integer NOT NULL DEFAULT 0,
        error_count integer NOT NULL DEFAULT 0,
        -- sums of the LLM spans' own counts, recomputed from the spans (never incremented)
        token_count_prompt bigint NOT NULL DEFAULT 0,
        token_count_completion bigint NOT NULL DEFAULT 0
      );
      CREATE INDEX traces_project_start ON traces (project_id, start_time, id);
      CREATE INDEX traces_project_latency ON traces (project_id, (end_time - start_time), id);
      CREATE INDEX traces_session ON traces (session_id, start_time) WHERE session_id IS NOT NULL;

      CREATE TABLE spans (
        id bigint PRIMARY KEY,
        span_id text NOT NULL UNIQUE,
        trace_rowid bigint NOT NULL,
        trace_id text NOT NULL,
        project_id bigint NOT NULL,
        parent_id text,
        name text NOT NULL,
        -- openinference.span.kind upper-cased and checked (the filter); the raw value is in attributes
        span_kind text NOT NULL,
        otel_kind text NOT NULL,
        status_code text NOT NULL,
        status_message text NOT NULL,
        start_time timestamptz NOT NULL,
        end_time timestamptz NOT NULL,
        -- flat dotted keys, plain JSON values: exactly what REST shows (renderAttributes)
        attributes jsonb NOT NULL,
        events jsonb NOT NULL,
        -- own counts of LLM spans (0 when absent), null for other kinds
        llm_token_count_prompt bigint,
        llm_token_count_completion bigint
      );
      CREATE INDEX spans_project ON spans (project_id, id);
      CREATE INDEX spans_trace ON spans (trace_rowid);
      CREATE INDEX spans_project_name ON spans (project_id, name, id);
      CREATE INDEX spans_project_kind ON spans (project_id, span_kind, id);
      CREATE INDEX spans_project_start ON spans (project_id, start_time);
      CREATE INDEX spans_roots ON spans (trace_rowid) WHERE parent_id IS NULL;
      CREATE INDEX spans_attributes ON spans USING gin (attributes jsonb_path_ops);

      -- Span attributes carry kilobytes of prompt and completion text: lz4 compresses them several
      -- times faster than the default pglz. Builds without lz4 (PGlite) keep the default.
      DO $$ BEGIN
        ALTER TABLE spans ALTER COLUMN attributes SET COMPRESSION lz4;
        ALTER TABLE spans ALTER COLUMN events SET COMPRESSION lz4;
      EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN NULL;
      END $$;
    `,
  },
  {
    // Rare attribute values (a user id among thousands) found through an index (issue 14, item 4):
    // the small attributes only, inline (no TOAST), with a GIN index the planner has statistics
    // for. It replaces the GIN index on the whole document, which every ingested span paid for and
    // which no plan could use well. Existing rows are filled with the projector's own expression.
    id: 'tracing/0002_attribute_index',
    sql: `
      ALTER TABLE spans ADD COLUMN attribute_index jsonb NOT NULL DEFAULT '{}'::jsonb;
      ALTER TABLE spans ALTER COLUMN attribute_index DROP DEFAULT;
      UPDATE spans SET attribute_index = ${attributeIndexOf('attributes')};
      CREATE INDEX spans_attribute_index ON spans USING gin (attribute_index jsonb_path_ops);
      DROP INDEX spans_attributes;
    `,
  },
  {
    // Full-text search over span names, inputs and outputs (issue 28; spanTextSearch.ts says why
    // this index and not another).
    id: 'tracing/0003_text_search',
    // Replaced by the span_search table (0009): kept as it ran, so existing databases migrate the same way.
    sql: `CREATE INDEX spans_text_search ON spans USING gin ((to_tsvector('simple'::regconfig,
      left(name, 1000) || ' ' ||
      left(coalesce(attributes ->> 'input.value', ''), 100000) || ' ' ||
      left(coalesce(attributes ->> 'output.value', ''), 100000))))`,
  },
  costsMigration,
  {
    // What a page says lacks a price: the LLM spans without a cost, per project and time (few, and
    // only those are indexed).
    id: 'tracing/0005_unpriced_spans',
    sql: `
      CREATE INDEX spans_unpriced ON spans (project_id, start_time) INCLUDE (llm_model_name) WHERE span_kind = 'LLM' AND cost_total IS NULL;
    `,
  },
  erasuresMigration,
  {
    // The metrics page's hourly rollup (traceRollup.ts), filled from the traces there are; and the
    // Traces tab's sort by cost, most expensive first (projections/tracing/sortKey.ts: traces
    // without a cost last), served by an index like the start-time and latency sorts.
    id: 'tracing/0007_metric_rollup',
    sql: `${TRACE_ROLLUP_MIGRATION}${TRACE_ROLLUP_BACKFILL}
      CREATE INDEX traces_project_cost ON traces (project_id, coalesce(cost_total, '-Infinity'::float8), id);
    `,
  },
  {
    // The rollup's latency histogram per day too, for long ranges' day buckets (traceRollup.ts).
    id: 'tracing/0008_metric_rollup_days',
    sql: `${DAY_ROLLUP_MIGRATION}${DAY_ROLLUP_BACKFILL}`,
  },
  {
    // Full-text search off the ingest path (issue 33): each span's words in a table of their own,
    // written behind the projection by the span search indexer (spanTextSearch.ts), instead of an
    // index on an expression every span insert parsed its text for (over 90 % of a span row's
    // write cost). Existing spans are indexed by the indexer too, from the oldest, after the start.
    id: 'tracing/0009_span_search',
    sql: SPAN_SEARCH_MIGRATION,
  },
  projectAccessMigration,
  {
    // Spans and their search words partitioned by week of start time (issue 40; spanPartitions.ts
    // says how and why): retention drops whole past weeks, time-bounded queries read only theirs.
    id: 'tracing/0011_span_partitions',
    sql: SPAN_PARTITIONS_MIGRATION,
  },
];
