import type { Migration } from '../../domain/eventstore/migration.ts';

/**
 * The prices' and costs' part of the tracing read model's migrations (listed, in order, in
 * projections/tracing/tracingMigrations.ts: one transaction and one checkpoint with the spans).
 */
export const costsMigration: Migration = {
  // Costs (issue 26): each LLM span's model, provider and cost at the price in force at its
  // start, summed into its trace and session (null: nothing priced). The admins' prices live
  // here too, written by this projector in log order, so a span is priced with the prices the
  // log holds before it; a price change queues a cost job that the cost reactor works off in
  // the background (costReactor.ts). Existing spans get their model here and their cost from
  // one job over everything (only when there are LLM spans: a rebuild's fresh tables prices
  // every span as it inserts it).
  id: 'tracing/0004_costs',
  sql: `
    ALTER TABLE spans ADD COLUMN llm_model_name text, ADD COLUMN llm_provider text,
      ADD COLUMN cost_prompt float8, ADD COLUMN cost_completion float8, ADD COLUMN cost_total float8;
    ALTER TABLE traces ADD COLUMN cost_prompt float8, ADD COLUMN cost_completion float8, ADD COLUMN cost_total float8;
    ALTER TABLE sessions ADD COLUMN cost_prompt float8, ADD COLUMN cost_completion float8, ADD COLUMN cost_total float8;
    UPDATE spans SET
      llm_model_name = CASE WHEN jsonb_typeof(attributes->'llm.model_name') = 'string' THEN nullif(attributes->>'llm.model_name', '') END,
      llm_provider = coalesce(
        CASE WHEN jsonb_typeof(attributes->'llm.provider') = 'string' THEN nullif(attributes->>'llm.provider', '') END,
        CASE WHEN jsonb_typeof(attributes->'llm.system') = 'string' THEN nullif(attributes->>'llm.system', '') END)
    WHERE span_kind = 'LLM';
    -- Which spans a price change reaches, and which models of a project lack a price.
    CREATE INDEX spans_llm_model ON spans (llm_model_name, start_time) WHERE llm_model_name IS NOT NULL;

    CREATE TABLE model_prices (
      model text NOT NULL,
      effective_from timestamptz NOT NULL,
      name_pattern text NOT NULL,
      provider text,
      prices jsonb NOT NULL,
      set_by text NOT NULL,
      set_at timestamptz NOT NULL,
      PRIMARY KEY (model, effective_from)
    );
    -- A price change to work off: the LLM spans from from_time on whose model name matches one of
    -- the patterns (every version of the changed model, before and after) are priced again.
    CREATE TABLE cost_jobs (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      event_id text NOT NULL UNIQUE,
      from_time timestamptz NOT NULL,
      patterns text[] NOT NULL,
      -- the stored model names the patterns match, found by the reactor's first chunk
      model_names text[],
      after_span bigint NOT NULL DEFAULT 0,
      queued_at timestamptz NOT NULL
    );
    INSERT INTO cost_jobs (event_id, from_time, patterns, queued_at)
    SELECT 'tracing/0004_costs', '-infinity', ARRAY['.*'], now() WHERE EXISTS (SELECT 1 FROM spans WHERE span_kind = 'LLM');
  `,
};
