import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { adjustTraceRollup } from '../metrics/traceRollup.ts';

const idList = (ids: Iterable<number>) => sql.array([...new Set(ids)], 'int8');

/**
 * A sum (numeric) clamped into bigint: hostile counts (two 6e18 in one trace) must not make the
 * UPDATE fail with "bigint out of range" and stop the projection.
 */
const clampedSum = (column: string) =>
  sql.fragment`least(greatest(coalesce(sum(${sql.identifier([column])}), 0), -9223372036854775808), 9223372036854775807)::bigint`;

/**
 * Recomputes these traces from their spans (times, root, counts, token and cost sums): recomputing
 * rather than incrementing keeps a replayed or duplicated span from counting twice. Traces left
 * without spans are deleted. Returns the sessions of the traces touched, to recompute next.
 */
export const recomputeTraces = async (tx: DatabaseTransactionConnection, traceRowids: readonly number[]): Promise<number[]> => {
  if (traceRowids.length === 0) return [];
  const ids = idList(traceRowids);
  // The metrics rollup follows the traces: their contribution out now, back in as recomputed.
  await adjustTraceRollup(tx, sql.fragment`t.id = ANY(${ids})`, -1);
  const sessions = await tx.anyFirst(sql.type(z.object({ session_id: z.bigint().nullable() }))`
    DELETE FROM traces t WHERE t.id = ANY(${ids}) AND NOT EXISTS (SELECT 1 FROM spans s WHERE s.trace_rowid = t.id)
    RETURNING t.session_id`);
  const kept = await tx.anyFirst(sql.type(z.object({ session_id: z.bigint().nullable() }))`
    UPDATE traces t SET
      start_time = a.start_time, end_time = a.end_time, span_count = a.span_count, error_count = a.error_count,
      token_count_prompt = a.prompt, token_count_completion = a.completion, root_span_id = a.root_span_id,
      cost_prompt = a.cost_prompt, cost_completion = a.cost_completion, cost_total = a.cost_total
    FROM (
      SELECT trace_rowid, min(start_time) AS start_time, max(end_time) AS end_time, count(*)::int AS span_count,
        (count(*) FILTER (WHERE status_code = 'ERROR'))::int AS error_count,
        ${clampedSum('llm_token_count_prompt')} AS prompt, ${clampedSum('llm_token_count_completion')} AS completion,
        sum(cost_prompt) AS cost_prompt, sum(cost_completion) AS cost_completion, sum(cost_total) AS cost_total,
        (array_agg(span_id ORDER BY start_time, id) FILTER (WHERE parent_id IS NULL))[1] AS root_span_id
      FROM spans WHERE trace_rowid = ANY(${ids}) GROUP BY trace_rowid
    ) a
    WHERE t.id = a.trace_rowid
    RETURNING t.session_id`);
  await adjustTraceRollup(tx, sql.fragment`t.id = ANY(${ids})`, 1);
  return [...sessions, ...kept].filter((s): s is bigint => s !== null).map(Number);
};

/**
 * Recomputes these sessions from their traces: time span, trace count, token sums, and the
 * first input / last output (root span of the earliest / latest trace), cost sums. Sessions left without
 * traces are deleted.
 */
export const recomputeSessions = async (tx: DatabaseTransactionConnection, sessionRowids: readonly number[]): Promise<void> => {
  if (sessionRowids.length === 0) return;
  const ids = idList(sessionRowids);
  // Locked first, read after: tracing partitions link traces to one session concurrently, and
  // each statement below then sees every link committed before the lock was granted (the last
  // partition to commit sums them all).
  await tx.query(sql.unsafe`SELECT 1 FROM sessions WHERE id = ANY(${ids}) ORDER BY id FOR UPDATE`);
  await tx.query(sql.unsafe`
    DELETE FROM sessions s WHERE s.id = ANY(${ids}) AND NOT EXISTS (SELECT 1 FROM traces t WHERE t.session_id = s.id)`);
  await tx.query(sql.unsafe`
    UPDATE sessions s SET
      start_time = a.start_time, end_time = a.end_time, trace_count = a.trace_count,
      token_count_prompt = a.prompt, token_count_completion = a.completion,
      cost_prompt = a.cost_prompt, cost_completion = a.cost_completion, cost_total = a.cost_total,
      first_input = f.value, first_input_mime_type = f.mime_type, last_output = l.value, last_output_mime_type = l.mime_type
    FROM (
      SELECT session_id, min(start_time) AS start_time, max(end_time) AS end_time, count(*)::int AS trace_count,
        ${clampedSum('token_count_prompt')} AS prompt, ${clampedSum('token_count_completion')} AS completion,
        sum(cost_prompt) AS cost_prompt, sum(cost_completion) AS cost_completion, sum(cost_total) AS cost_total
      FROM traces WHERE session_id = ANY(${ids}) GROUP BY session_id
    ) a
    LEFT JOIN LATERAL (
      SELECT sp.attributes->>'input.value' AS value, sp.attributes->>'input.mime_type' AS mime_type
      FROM traces t JOIN spans sp ON sp.span_id = t.root_span_id
      WHERE t.session_id = a.session_id ORDER BY t.start_time, t.id LIMIT 1
    ) f ON true
    LEFT JOIN LATERAL (
      SELECT sp.attributes->>'output.value' AS value, sp.attributes->>'output.mime_type' AS mime_type
      FROM traces t JOIN spans sp ON sp.span_id = t.root_span_id
      WHERE t.session_id = a.session_id ORDER BY t.start_time DESC, t.id DESC LIMIT 1
    ) l ON true
    WHERE s.id = a.session_id`);
};
