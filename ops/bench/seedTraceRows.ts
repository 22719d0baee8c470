import { sql, type DatabasePool } from 'slonik';
import { rawSql, splitStatements } from '../../projections/migrate.ts';
import { DAY_ROLLUP_BACKFILL, TRACE_ROLLUP_BACKFILL } from '../../projections/metrics/traceRollup.ts';

/**
 * The tracing read model's rows for project row 1, written in SQL (generate_series) rather than
 * through OTLP ingest, for benchmarks of what reads them (the metrics charts, alert evaluation):
 * `traces` evenly over `spreadMs` ending at `endMs`, latencies 0.2–20 s (log-uniform-ish), 5 % with
 * an error, LLM token sums and costs; the hourly and daily rollup filled the way its migration fills
 * it; and the spans (project, trace, start time, span id). Loading a million spans through ingest
 * takes longer than a session on a shared machine allows.
 */
export const seedTraceRows = async (
  pool: DatabasePool,
  options: { readonly spans: number; readonly perTrace: number; readonly spreadMs: number; readonly endMs: number },
  log: (message: string) => void,
): Promise<{ readonly traces: number }> => {
  const { spans, perTrace, spreadMs } = options;
  const traces = Math.ceil(spans / perTrace);
  const origin = new Date(options.endMs - spreadMs).toISOString();
  const t0 = performance.now();
  await pool.query(sql.unsafe`
    INSERT INTO projects (id, project_id, name, gradient_start_color, gradient_end_color, created_at, updated_at)
    VALUES (1, gen_random_uuid(), 'bench-metrics', '#000', '#fff', now(), now())`);
  await pool.query(sql.unsafe`
    INSERT INTO traces (id, trace_id, project_id, start_time, end_time, root_span_id, span_count, error_count,
      token_count_prompt, token_count_completion, cost_prompt, cost_completion, cost_total)
    SELECT i, md5(i::text), 1, ${origin}::timestamptz + (i * ${spreadMs / traces}::float8 * interval '1 millisecond'),
      ${origin}::timestamptz + (i * ${spreadMs / traces}::float8 * interval '1 millisecond') + (200 * power(100, random()) * interval '1 millisecond'),
      left(md5(i::text || 'r'), 16), ${perTrace}, CASE WHEN i % 20 = 0 THEN 1 ELSE 0 END,
      3 * (500 + i % 700), 3 * (100 + i % 300), 3 * (500 + i % 700) * 1.5e-7, 3 * (100 + i % 300) * 6e-7,
      3 * (500 + i % 700) * 1.5e-7 + 3 * (100 + i % 300) * 6e-7
    FROM generate_series(1, ${traces}) i`);
  log(`${traces.toLocaleString('en-US')} traces in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  // The hourly rollup the projector keeps as it applies traces (projections/metrics/traceRollup.ts):
  // the traces were written in SQL here, so it is filled the way the migration fills it.
  for (const statement of splitStatements(TRACE_ROLLUP_BACKFILL + DAY_ROLLUP_BACKFILL)) await pool.query(rawSql(statement));
  const t1 = performance.now();
  // Spans: project, start time, span id; in chunks, each within the pool's statement timeout.
  for (let from = 0; from < spans; from += 50_000) {
    const to = Math.min(spans, from + 50_000) - 1;
    await pool.query(sql.unsafe`
      INSERT INTO spans (id, span_id, trace_rowid, trace_id, project_id, parent_id, name, span_kind, otel_kind, status_code, status_message,
        start_time, end_time, attributes, attribute_index, events)
      SELECT s, left(md5(s::text), 16), t.id, t.trace_id, 1, CASE WHEN s % ${perTrace} = 0 THEN NULL ELSE t.root_span_id END, 'span',
        CASE WHEN s % ${perTrace} IN (2, 4) THEN 'LLM' ELSE 'CHAIN' END, 'SPAN_KIND_INTERNAL', 'OK', '',
        t.start_time, t.end_time, '{}', '{}', '[]'
      FROM generate_series(${from}::int, ${to}::int) s JOIN traces t ON t.id = s / ${perTrace} + 1`);
  }
  log(`${spans.toLocaleString('en-US')} spans in ${((performance.now() - t1) / 1000).toFixed(0)} s`);
  return { traces };
};
