import { sql, type DatabaseTransactionConnection, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';

/**
 * The metrics page's rollup of traces (projections/metrics/metricQueries.ts reads it for hour and
 * day buckets): per project and hour of trace start time, the traces, those with an error, LLM
 * token and cost sums (`trace_metric_hours`), and a histogram of trace latency in log-scale bins
 * (`trace_latency_hours`), from which the p50/p95/p99 of any run of hours come to within a bin.
 * The histogram is kept per day too (`trace_latency_days`): a month's day buckets read 30 of
 * those instead of 720 hours of bins.
 *
 * Kept by the tracing projector (and the cost reactor) in the transaction that changes the traces:
 * a trace's contribution is taken out before a change and put back after it (`adjustTraceRollup`),
 * so a trace whose extent, errors or cost change with later spans, a repricing or a deletion moves
 * the rollup with it. Sums are numeric (exact, in any order), so the rollup of a replay equals the
 * live one to the last digit, and a row whose traces are all gone is deleted, not left at zero.
 */
export const TRACE_ROLLUP_TABLES = ['trace_metric_hours', 'trace_latency_hours', 'trace_latency_days'] as const;

/** Latency bins grow by 5 %: bin 0 is under 1 ms, bin k ≥ 1 is [1.05^(k-1), 1.05^k) ms. */
export const LATENCY_BIN_RATIO = 1.05;

export const TRACE_ROLLUP_MIGRATION = `
  CREATE TABLE trace_metric_hours (
    project_id bigint NOT NULL,
    hour timestamptz NOT NULL,
    trace_count integer NOT NULL,
    error_count integer NOT NULL,
    token_count_prompt numeric NOT NULL,
    token_count_completion numeric NOT NULL,
    -- the sum over the traces with a cost, and how many have one (none: the hour shows no cost)
    cost_total numeric NOT NULL,
    cost_count integer NOT NULL,
    PRIMARY KEY (project_id, hour)
  );
  CREATE TABLE trace_latency_hours (
    project_id bigint NOT NULL,
    hour timestamptz NOT NULL,
    bin smallint NOT NULL,
    count integer NOT NULL,
    -- the metrics query reads (hour, bin, count) from the index alone
    PRIMARY KEY (project_id, hour, bin) INCLUDE (count)
  );
`;

/** The hour of a start time, anchored at the epoch (a bucket never depends on the session's time zone). */
export const hourOf = (column: FragmentSqlToken) => sql.fragment`date_bin('1 hour'::interval, ${column}, 'epoch'::timestamptz)`;
/** The day (UTC) of a start time, as the metrics' day buckets. */
export const dayOf = (column: FragmentSqlToken) => sql.fragment`date_bin('1 day'::interval, ${column}, 'epoch'::timestamptz)`;

/**
 * The latency bin of a trace `t` (LATENCY_BIN_RATIO), as SQL text: the one definition the live
 * adjustments, the queries and the migration's backfill share.
 */
const LATENCY_BIN_SQL = `(CASE WHEN extract(epoch FROM t.end_time - t.start_time)::float8 * 1000 < 1 THEN 0
  ELSE least(1 + floor(ln(extract(epoch FROM t.end_time - t.start_time)::float8 * 1000) / ln(${LATENCY_BIN_RATIO}::float8)), 32000) END)::smallint`;

/** A constant SQL text as a fragment (slonik wants a frozen template strings array). */
const constantFragment = (text: string) =>
  sql.fragment(Object.freeze(Object.assign([text], { raw: Object.freeze([text]) })) as unknown as TemplateStringsArray);

/** The latency bin of the trace `t`. */
export const latencyBin = constantFragment(LATENCY_BIN_SQL);

const key = z.object({ project_id: z.bigint(), hour: z.string(), left: z.number() });

/**
 * Adds (`sign` 1) or takes out (-1) the contribution of the traces `t` that `where` selects, as
 * they are now. Called with -1 before traces change or go and with 1 after they changed or came.
 */
export const adjustTraceRollup = async (tx: DatabaseTransactionConnection, where: FragmentSqlToken, sign: 1 | -1): Promise<void> => {
  const hour = hourOf(sql.fragment`t.start_time`);
  const rows = await tx.any(sql.type(key)`
    INSERT INTO trace_metric_hours AS h (project_id, hour, trace_count, error_count, token_count_prompt, token_count_completion, cost_total, cost_count)
    SELECT t.project_id, ${hour}, ${sign} * count(*), ${sign} * count(*) FILTER (WHERE t.error_count > 0),
      ${sign} * coalesce(sum(t.token_count_prompt::numeric), 0), ${sign} * coalesce(sum(t.token_count_completion::numeric), 0),
      ${sign} * coalesce(sum(t.cost_total::numeric), 0), ${sign} * count(t.cost_total)
    FROM traces t WHERE ${where} GROUP BY 1, 2
    ON CONFLICT (project_id, hour) DO UPDATE SET
      trace_count = h.trace_count + EXCLUDED.trace_count, error_count = h.error_count + EXCLUDED.error_count,
      token_count_prompt = h.token_count_prompt + EXCLUDED.token_count_prompt,
      token_count_completion = h.token_count_completion + EXCLUDED.token_count_completion,
      cost_total = h.cost_total + EXCLUDED.cost_total, cost_count = h.cost_count + EXCLUDED.cost_count
    RETURNING h.project_id, to_json(h.hour)#>>'{}' AS hour, h.trace_count AS left`);
  if (rows.length === 0) return;
  const bins = await tx.any(sql.type(key)`
    INSERT INTO trace_latency_hours AS l (project_id, hour, bin, count)
    SELECT t.project_id, ${hour}, ${latencyBin}, ${sign} * count(*) FROM traces t WHERE ${where} GROUP BY 1, 2, 3
    ON CONFLICT (project_id, hour, bin) DO UPDATE SET count = l.count + EXCLUDED.count
    RETURNING l.project_id, to_json(l.hour)#>>'{}' AS hour, l.count AS left`);
  const dayBins = await tx.any(sql.type(key)`
    INSERT INTO trace_latency_days AS l (project_id, day, bin, count)
    SELECT t.project_id, ${dayOf(sql.fragment`t.start_time`)}, ${latencyBin}, ${sign} * count(*) FROM traces t WHERE ${where} GROUP BY 1, 2, 3
    ON CONFLICT (project_id, day, bin) DO UPDATE SET count = l.count + EXCLUDED.count
    RETURNING l.project_id, to_json(l.day)#>>'{}' AS hour, l.count AS left`);
  const emptied = (list: readonly z.infer<typeof key>[]) => list.filter((r) => r.left === 0);
  if (emptied(dayBins).length > 0)
    await tx.query(sql.unsafe`
      DELETE FROM trace_latency_days l USING unnest(${sql.array(
        emptied(dayBins).map((r) => r.project_id),
        'int8',
      )}, ${sql.array(
        emptied(dayBins).map((r) => r.hour),
        'timestamptz',
      )}) AS x(project_id, day)
      WHERE l.project_id = x.project_id AND l.day = x.day AND l.count = 0`);
  const gone = emptied(rows);
  if (gone.length > 0)
    await tx.query(sql.unsafe`
      DELETE FROM trace_metric_hours h USING unnest(${sql.array(
        gone.map((r) => r.project_id),
        'int8',
      )}, ${sql.array(
        gone.map((r) => r.hour),
        'timestamptz',
      )}) AS x(project_id, hour)
      WHERE h.project_id = x.project_id AND h.hour = x.hour AND h.trace_count = 0`);
  if (emptied(bins).length > 0)
    await tx.query(sql.unsafe`
      DELETE FROM trace_latency_hours l USING unnest(${sql.array(
        emptied(bins).map((r) => r.project_id),
        'int8',
      )}, ${sql.array(
        emptied(bins).map((r) => r.hour),
        'timestamptz',
      )}) AS x(project_id, hour)
      WHERE l.project_id = x.project_id AND l.hour = x.hour AND l.count = 0`);
};

/** A project's rollup, on its deletion (its traces go with it). */
export const dropProjectRollup = async (tx: DatabaseTransactionConnection, projectRowid: bigint): Promise<void> => {
  for (const table of TRACE_ROLLUP_TABLES)
    await tx.query(sql.unsafe`DELETE FROM ${sql.identifier([table])} WHERE project_id = ${projectRowid}`);
};

/** Fills the rollup from the traces there are (the migration that adds it to a database with traces). */
export const TRACE_ROLLUP_BACKFILL = `
  INSERT INTO trace_metric_hours (project_id, hour, trace_count, error_count, token_count_prompt, token_count_completion, cost_total, cost_count)
  SELECT t.project_id, date_bin('1 hour'::interval, t.start_time, 'epoch'::timestamptz), count(*), count(*) FILTER (WHERE t.error_count > 0),
    coalesce(sum(t.token_count_prompt::numeric), 0), coalesce(sum(t.token_count_completion::numeric), 0),
    coalesce(sum(t.cost_total::numeric), 0), count(t.cost_total)
  FROM traces t GROUP BY 1, 2;
  INSERT INTO trace_latency_hours (project_id, hour, bin, count)
  SELECT t.project_id, date_bin('1 hour'::interval, t.start_time, 'epoch'::timestamptz), ${LATENCY_BIN_SQL}, count(*)
  FROM traces t GROUP BY 1, 2, 3;
`;

/**
 * The histogram per day (tracing/0008): created and filled from the hours' (same bins, summed).
 * Kept apart from TRACE_ROLLUP_MIGRATION / TRACE_ROLLUP_BACKFILL, which tracing/0007 ran as they are.
 */
export const DAY_ROLLUP_MIGRATION = `
  CREATE TABLE trace_latency_days (
    project_id bigint NOT NULL,
    day timestamptz NOT NULL,
    bin smallint NOT NULL,
    count integer NOT NULL,
    PRIMARY KEY (project_id, day, bin) INCLUDE (count)
  );
`;

/** Fills the day level from the hours' (tracing/0008, and whatever filled the hours by hand). */
export const DAY_ROLLUP_BACKFILL = `
  INSERT INTO trace_latency_days (project_id, day, bin, count)
  SELECT project_id, date_bin('1 day'::interval, hour, 'epoch'::timestamptz), bin, sum(count)
  FROM trace_latency_hours GROUP BY 1, 2, 3;
`;
