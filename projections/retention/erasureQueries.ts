import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const workRow = z.object({
  deletion_event: z.string(),
  source_event: z.string(),
  span_id: z.string(),
  trace_id: z.string(),
  session_id: z.string().nullable(),
});

export type ErasureWork = z.infer<typeof workRow>;

/** Which spans of which SpansIngested events the given deletions took (tracing_erasures, written as they were applied). */
export const erasureWork = async (db: CommonQueryMethods, deletionEvents: readonly string[]): Promise<ErasureWork[]> =>
  deletionEvents.length === 0
    ? []
    : [
        ...(await db.any(sql.type(workRow)`
          SELECT deletion_event::text, source_event::text, span_id, trace_id, session_id FROM tracing_erasures
          WHERE deletion_event = ANY(${sql.array([...deletionEvents], 'uuid')})
          ORDER BY deletion_event, source_event, span_id`)),
      ];

/** Of these session ids, the ones the read model still holds (a session with traces left). */
export const sessionsStillThere = async (db: CommonQueryMethods, sessionIds: readonly string[]): Promise<Set<string>> =>
  new Set(
    sessionIds.length === 0
      ? []
      : await db.anyFirst(sql.type(z.object({ session_id: z.string() }))`
          SELECT session_id FROM sessions WHERE session_id = ANY(${sql.array([...sessionIds], 'text')})`),
  );

/** Of these trace ids, the ones the read model still holds (a span deletion leaves its trace while it has spans). */
export const tracesStillThere = async (db: CommonQueryMethods, traceIds: readonly string[]): Promise<Set<string>> =>
  new Set(
    traceIds.length === 0
      ? []
      : await db.anyFirst(sql.type(z.object({ trace_id: z.string() }))`
          SELECT trace_id FROM traces WHERE trace_id = ANY(${sql.array([...traceIds], 'text')})`),
  );

const traceIdRow = z.object({ trace_id: z.string() });

/**
 * A project's traces that a retention rule expires, oldest first: started before `startedBefore`,
 * or older than its newest `keep` traces (by start time, then row id). Null rules expire nothing.
 */
export const expiredTraces = async (
  db: CommonQueryMethods,
  projectRowId: number,
  rule: { readonly startedBefore: Date | null; readonly keep: number | null },
  limit: number,
): Promise<string[]> => {
  const byAge =
    rule.startedBefore === null ? sql.fragment`false` : sql.fragment`t.start_time < ${rule.startedBefore.toISOString()}::timestamptz`;
  // The keep-th newest trace; everything before it expires. No such trace (fewer than keep): NULL, nothing expires.
  const byCount =
    rule.keep === null
      ? sql.fragment`false`
      : sql.fragment`(t.start_time, t.id) < (SELECT n.start_time, n.id FROM traces n WHERE n.project_id = ${projectRowId}
          ORDER BY n.start_time DESC, n.id DESC OFFSET ${rule.keep - 1} LIMIT 1)`;
  return [
    ...(await db.anyFirst(sql.type(traceIdRow)`
      SELECT t.trace_id FROM traces t WHERE t.project_id = ${projectRowId} AND (${byAge} OR ${byCount})
      ORDER BY t.start_time, t.id LIMIT ${limit}`)),
  ];
};
