import type pg from 'pg';
import { splitStatements } from '../../projections/migrate.ts';
import { DAY_ROLLUP_BACKFILL, TRACE_ROLLUP_BACKFILL } from '../../projections/metrics/traceRollup.ts';

/**
 * bench:queries' `--seed copies`: ingest puts a template of spans through OTLP (so every row is
 * what the projector writes), then this copies the template's rows of the tracing read model
 * `copies` times in SQL, as if `copies` more clients had sent the same traces: every copy gets
 * new row ids (offset by the template's highest, per copy), new span, trace and session ids
 * (hashed from the original and the copy's number; session ids in the span attributes too), its
 * times shifted back by up to a day, and everything else of the row as projected (attributes,
 * events, costs, search words, the source event). The metric rollups are then refilled from the
 * traces the way their migration fills them, and the id counters moved past the copies.
 * Generating ten million spans through ingest takes hours on this machine; this takes minutes.
 * `tracingShape` compares the copies with the projected rows (bench:queries prints both).
 */
export const copyTracingRows = async (
  client: pg.Client,
  copies: number,
  log: (message: string) => void,
): Promise<{ readonly spans: number; readonly templateMaxId: number }> => {
  const max = async (table: string) => Number((await client.query(`SELECT coalesce(max(id), 0)::int8 AS m FROM ${table}`)).rows[0].m);
  const S = await max('spans');
  const T = await max('traces');
  const E = await max('sessions');
  await client.query('SET statement_timeout = 0');
  const shift = (c: string) => `((${c} * 7919) % 86400) * interval '1 second'`;
  const sessionAttr = (column: string, c: string) =>
    `CASE WHEN ${column} ? 'session.id' THEN jsonb_set(${column}, '{session.id}', to_jsonb((${column} ->> 'session.id') || '~' || ${c})) ELSE ${column} END`;
  const started = performance.now();
  let copied = 0;
  // A few copies per statement: each statement's rows stay within one transaction's comfort.
  const PER_STATEMENT = Math.max(1, Math.floor(500_000 / Math.max(1, S)));
  for (let from = 1; from <= copies; from += PER_STATEMENT) {
    const to = Math.min(copies, from + PER_STATEMENT - 1);
    await client.query('BEGIN');
    await client.query(`
      INSERT INTO sessions (id, session_id, project_id, start_time, end_time, trace_count, token_count_prompt, token_count_completion,
        first_input, first_input_mime_type, last_output, last_output_mime_type, cost_prompt, cost_completion, cost_total)
      SELECT e.id + c * ${E}, e.session_id || '~' || c, e.project_id, e.start_time - ${shift('c')}, e.end_time - ${shift('c')},
        e.trace_count, e.token_count_prompt, e.token_count_completion, e.first_input, e.first_input_mime_type, e.last_output,
        e.last_output_mime_type, e.cost_prompt, e.cost_completion, e.cost_total
      FROM sessions e, generate_series(${from}, ${to}) c WHERE e.id <= ${E}`);
    await client.query(`
      INSERT INTO traces (id, trace_id, project_id, session_id, start_time, end_time, root_span_id, span_count, error_count,
        token_count_prompt, token_count_completion, cost_prompt, cost_completion, cost_total)
      SELECT t.id + c * ${T}, md5(t.trace_id || ':' || c), t.project_id, t.session_id + c * ${E}, t.start_time - ${shift('c')},
        t.end_time - ${shift('c')}, left(md5(t.root_span_id || ':' || c), 16), t.span_count, t.error_count, t.token_count_prompt,
        t.token_count_completion, t.cost_prompt, t.cost_completion, t.cost_total
      FROM traces t, generate_series(${from}, ${to}) c WHERE t.id <= ${T}`);
    const inserted = await client.query(`
      INSERT INTO spans (id, span_id, trace_rowid, trace_id, project_id, parent_id, name, span_kind, otel_kind, status_code,
        status_message, start_time, end_time, attributes, events, llm_token_count_prompt, llm_token_count_completion,
        attribute_index, llm_model_name, llm_provider, cost_prompt, cost_completion, cost_total, source_event)
      SELECT s.id + c * ${S}, left(md5(s.span_id || ':' || c), 16), s.trace_rowid + c * ${T}, md5(s.trace_id || ':' || c), s.project_id,
        left(md5(s.parent_id || ':' || c), 16), s.name, s.span_kind, s.otel_kind, s.status_code, s.status_message,
        s.start_time - ${shift('c')}, s.end_time - ${shift('c')}, ${sessionAttr('s.attributes', 'c')}, s.events,
        s.llm_token_count_prompt, s.llm_token_count_completion, ${sessionAttr('s.attribute_index', 'c')}, s.llm_model_name,
        s.llm_provider, s.cost_prompt, s.cost_completion, s.cost_total, s.source_event
      FROM spans s, generate_series(${from}, ${to}) c WHERE s.id <= ${S}`);
    await client.query(`
      INSERT INTO span_search (span_rowid, span_start, words)
      SELECT w.span_rowid + c * ${S}, w.span_start - ${shift('c')}, w.words
      FROM span_search w, generate_series(${from}, ${to}) c WHERE w.span_rowid <= ${S}`);
    await client.query('COMMIT');
    copied += inserted.rowCount ?? 0;
    log(
      `copies ${from}–${to} of ${copies}: ${copied.toLocaleString('en-US')} spans in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
  }
  await client.query('BEGIN');
  await client.query('DELETE FROM trace_metric_hours; DELETE FROM trace_latency_hours; DELETE FROM trace_latency_days');
  for (const statement of splitStatements(TRACE_ROLLUP_BACKFILL + DAY_ROLLUP_BACKFILL)) await client.query(statement);
  await client.query(`UPDATE tracing_ids SET last = CASE kind WHEN 'span' THEN ${S * (copies + 1)} WHEN 'trace' THEN ${T * (copies + 1)}
    WHEN 'session' THEN ${E * (copies + 1)} ELSE last END`);
  await client.query('COMMIT');
  return { spans: copied, templateMaxId: S };
};

/**
 * The shape of the spans rows with row ids in (from, to]: per column, the share of nulls and the
 * mean stored bytes; the kinds and statuses; spans per trace and traces per session. Projected
 * rows and their copies must give the same.
 */
export const tracingShape = async (client: pg.Client, from: number, to: number): Promise<Record<string, string>> => {
  const columns = (
    await client.query(
      `SELECT attname FROM pg_attribute WHERE attrelid = 'spans'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    )
  ).rows.map((r: { attname: string }) => r.attname);
  const stats = columns.map(
    (c) =>
      `round(avg(pg_column_size(s.${c})), 1)::text || ' B, ' || round(100.0 * count(*) FILTER (WHERE s.${c} IS NULL) / count(*), 2) || ' % null' AS "${c}"`,
  );
  const row = (
    await client.query(`
      SELECT count(*)::text AS rows, ${stats.join(', ')},
        (SELECT string_agg(k || '=' || round(share, 2) || '%', ' ' ORDER BY k) FROM (SELECT k, 100.0 * n / sum(n) OVER () AS share
          FROM (SELECT span_kind || '/' || status_code AS k, count(*) AS n FROM spans WHERE id > ${from} AND id <= ${to} GROUP BY 1) g) x) AS kinds,
        (SELECT round(avg(n), 3)::text FROM (SELECT count(*) AS n FROM spans WHERE id > ${from} AND id <= ${to} GROUP BY trace_rowid) x) AS spans_per_trace,
        (SELECT count(*) FROM span_search WHERE span_rowid > ${from} AND span_rowid <= ${to}) AS with_words
      FROM spans s WHERE s.id > ${from} AND s.id <= ${to}`)
  ).rows[0] as Record<string, string>;
  row.with_words = `${((100 * Number(row.with_words)) / Number(row.rows)).toFixed(2)} %`;
  delete row.rows;
  return row;
};
