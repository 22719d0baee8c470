import { sql, type DatabaseTransactionConnection } from 'slonik';
import { nanosToIsoMicros } from '../../domain/tracing/nanoTime.ts';
import { storableNanos } from '../../domain/base/storableText.ts';

/**
 * The start time and project of each scored annotation's target, kept on the annotation row
 * (`target_project`, `target_start`), so the metrics page's score series
 * (projections/metrics/metricQueries.ts) reads only annotations, by (project, start time), from
 * one index (`annotations_scored_by_start`), instead of joining each annotation to its span or
 * trace row in the tracing read model (a heap fetch per annotation: 520–868 ms p95 for a month of
 * 10,000 scores at 1M spans, BENCHMARKS §18b).
 *
 * Why an index and not a per-hour rollup of (name, sum, count) as the trace series has: scores
 * are far fewer than spans (one per judged span or trace, not one per span), so reading a
 * month's scores from an index costs milliseconds, the means stay exact (avg over the same
 * values as before), and every way an annotation changes or goes (an upsert overwriting its
 * score, a removal by key, a bulk delete by filters, its target's deletion) keeps the chart
 * right with no bookkeeping. A rollup would have to be corrected by each of those.
 *
 * The times come from this read model's own scope of targets (targetScope.ts), from the
 * `SpansIngested` events alone, by the tracing projector's rules: a span starts at its
 * `startTimeUnixNano` as stored (storable.ts, cut to microseconds as timestamptz keeps it); a
 * trace starts at its earliest span still there (spans repeated or sent after their id was taken
 * count once, removed spans not at all); a span's project is its trace's, the one that created
 * it. An annotation recorded before its target has neither until the target arrives; a trace's
 * annotations move when an earlier span arrives or its earliest span is deleted. Only span and
 * trace annotations are placed (the chart draws no other); an annotation whose target goes is
 * deleted with it, so the chart follows deletions, retention and erasure by itself.
 */
export const SCORED_TARGETS_MIGRATION = `
  ALTER TABLE annotation_span_scope ADD COLUMN start_time timestamptz;
  ALTER TABLE annotation_trace_scope ADD COLUMN start_time timestamptz;
  ALTER TABLE annotations ADD COLUMN target_project uuid, ADD COLUMN target_start timestamptz;
`;

/**
 * Fills the start times of the targets there are, and places their annotations. Spans' times are
 * the one thing this read model reads from the tracing one, once, here: a migration cannot replay
 * the log, and the span rows hold what the same rule gave them. That is exact when both read
 * models stood at the same event (as after a clean stop); otherwise (or to be sure)
 * `loupe projections rebuild annotations` derives every time from the log. In a rebuild the
 * scope is empty and this changes nothing; without a tracing read model it is skipped.
 */
export const SCORED_TARGETS_BACKFILL = `
  DO $$ BEGIN
    IF to_regclass('spans') IS NOT NULL THEN
      UPDATE annotation_span_scope sc SET start_time = s.start_time FROM spans s WHERE s.span_id = sc.span_id;
    END IF;
  END $$;
  UPDATE annotation_trace_scope t SET start_time = m.start_time
  FROM (SELECT trace_id, min(start_time) AS start_time FROM annotation_span_scope GROUP BY trace_id) m
  WHERE m.trace_id = t.trace_id;
  UPDATE annotations a SET target_project = t.project_id, target_start = s.start_time
  FROM annotation_span_scope s JOIN annotation_trace_scope t ON t.trace_id = s.trace_id
  WHERE a.target = 'span' AND a.target_id = s.span_id;
  UPDATE annotations a SET target_project = t.project_id, target_start = t.start_time
  FROM annotation_trace_scope t WHERE a.target = 'trace' AND a.target_id = t.trace_id;
`;

/** The score series: a project's scores in a time range, with their names, from the index alone (built after the backfill, faster). */
export const SCORED_TARGETS_INDEX = `
  CREATE INDEX annotations_scored_by_start ON annotations (target_project, target_start) INCLUDE (name, score)
    WHERE score IS NOT NULL;
`;

/** A raw span's start time as the tracing projector stores it (storable.ts, then timestamptz's microseconds). */
export const spanStartOf = (raw: Record<string, unknown>): string => nanosToIsoMicros(storableNanos(raw.startTimeUnixNano));

/**
 * After spans entered the scope (only those new to it): each one's trace starts at its earliest
 * span, and the annotations already waiting on those spans, or on traces whose start moved, get
 * their target's project and start time. One statement.
 */
export const placeNewSpans = async (
  tx: DatabaseTransactionConnection,
  spans: readonly { readonly span_id: string; readonly trace_id: string; readonly start_time: string | null }[],
): Promise<void> => {
  if (spans.length === 0) return;
  await tx.query(sql.unsafe`
    WITH fresh AS (
      SELECT * FROM unnest(${sql.array(
        spans.map((s) => s.span_id),
        'text',
      )}::text[], ${sql.array(
        spans.map((s) => s.trace_id),
        'text',
      )}::text[], ${sql.array(
        spans.map((s) => s.start_time),
        'timestamptz',
      )}::timestamptz[]) AS x(span_id, trace_id, start_time)
    ), moved AS (
      UPDATE annotation_trace_scope t SET start_time = m.start_time
      FROM (SELECT trace_id, min(start_time) AS start_time FROM fresh GROUP BY trace_id) m
      WHERE t.trace_id = m.trace_id AND (t.start_time IS NULL OR m.start_time < t.start_time)
      RETURNING t.trace_id, t.project_id, t.start_time
    ), on_traces AS (
      UPDATE annotations a SET target_project = moved.project_id, target_start = moved.start_time
      FROM moved WHERE a.target = 'trace' AND a.target_id = moved.trace_id
    )
    UPDATE annotations a SET target_project = t.project_id, target_start = f.start_time
    FROM fresh f JOIN annotation_trace_scope t ON t.trace_id = f.trace_id
    WHERE a.target = 'span' AND a.target_id = f.span_id`);
};

/** After spans of these traces left the scope: each starts at its earliest span left, and its annotations move with it. */
export const restartTraces = async (tx: DatabaseTransactionConnection, traceIds: readonly string[]): Promise<void> => {
  if (traceIds.length === 0) return;
  await tx.query(sql.unsafe`
    WITH moved AS (
      UPDATE annotation_trace_scope t SET start_time = (SELECT min(s.start_time) FROM annotation_span_scope s WHERE s.trace_id = t.trace_id)
      WHERE t.trace_id = ANY(${sql.array([...new Set(traceIds)], 'text')})
      RETURNING t.trace_id, t.start_time
    )
    UPDATE annotations a SET target_start = moved.start_time
    FROM moved WHERE a.target = 'trace' AND a.target_id = moved.trace_id AND a.target_start IS DISTINCT FROM moved.start_time`);
};

/**
 * The project and start time of an annotation's target `x` (a row with `target` and
 * `target_id`), as SQL select items for `INSERT ... SELECT`: null for a target not (yet) known,
 * and for documents and sessions, which the chart does not draw. The select items need `joins` in the FROM clause.
 */
export const targetPlacement = {
  joins: sql.fragment`
    LEFT JOIN annotation_span_scope placed_span ON x.target = 'span' AND placed_span.span_id = x.target_id
    LEFT JOIN annotation_trace_scope placed_trace ON placed_trace.trace_id =
      CASE x.target WHEN 'span' THEN placed_span.trace_id WHEN 'trace' THEN x.target_id END`,
  project: sql.fragment`placed_trace.project_id`,
  start: sql.fragment`CASE x.target WHEN 'span' THEN placed_span.start_time ELSE placed_trace.start_time END`,
};
