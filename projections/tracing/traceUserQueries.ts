import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { costColumns } from './costColumns.ts';

/**
 * The users of a project's app, as its spans name them in `user.id` (OpenInference): per user its
 * traces, sessions, tokens, cost, traces with an error and when it was last seen. A trace belongs
 * to the user its root span names, else the first of its spans that names one. Summed from the
 * traces table, so the figures are those the traces' own REST and GraphQL fields give.
 */
const traceUserRow = z.object({
  user_id: z.string(),
  trace_count: z.number(),
  session_count: z.number(),
  error_count: z.number(),
  token_count_prompt: z.bigint().transform(Number),
  token_count_completion: z.bigint().transform(Number),
  first_seen_us: z.bigint(),
  last_seen_us: z.bigint(),
  ...costColumns,
});

export type TraceUserRow = z.infer<typeof traceUserRow>;

/** Every user of the project, most recently seen first; the spans' small attributes (attribute_index) hold `user.id`. */
export const listTraceUsers = (db: CommonQueryMethods, projectId: number): Promise<readonly TraceUserRow[]> =>
  db.any(sql.type(traceUserRow)`
    WITH trace_users AS (
      SELECT DISTINCT ON (s.trace_rowid) s.trace_rowid, s.attribute_index ->> 'user.id' AS user_id
      FROM spans s
      WHERE s.project_id = ${projectId} AND (s.attribute_index ->> 'user.id') IS NOT NULL
      ORDER BY s.trace_rowid, (s.parent_id IS NULL) DESC, s.id
    )
    SELECT u.user_id,
      count(*)::int AS trace_count,
      count(DISTINCT t.session_id)::int AS session_count,
      (count(*) FILTER (WHERE t.error_count > 0))::int AS error_count,
      sum(t.token_count_prompt)::int8 AS token_count_prompt,
      sum(t.token_count_completion)::int8 AS token_count_completion,
      sum(t.cost_prompt) AS cost_prompt, sum(t.cost_completion) AS cost_completion, sum(t.cost_total) AS cost_total,
      (extract(epoch FROM min(t.start_time)) * 1000000)::int8 AS first_seen_us,
      (extract(epoch FROM max(t.end_time)) * 1000000)::int8 AS last_seen_us
    FROM trace_users u JOIN traces t ON t.id = u.trace_rowid
    GROUP BY u.user_id
    ORDER BY max(t.end_time) DESC, u.user_id`);

/** The user a session's spans name (`user.id`), from its earliest trace that names one; null when none does. */
export const sessionUser = async (db: CommonQueryMethods, sessionRowid: number): Promise<string | null> =>
  db.maybeOneFirst(sql.type(z.object({ user_id: z.string() }))`
    SELECT s.attribute_index ->> 'user.id' AS user_id
    FROM traces t JOIN spans s ON s.trace_rowid = t.id
    WHERE t.session_id = ${sessionRowid} AND (s.attribute_index ->> 'user.id') IS NOT NULL
    ORDER BY t.start_time, (s.parent_id IS NULL) DESC, s.id
    LIMIT 1`);
