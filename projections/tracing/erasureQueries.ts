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

const expiredRow = z.object({ project_id: z.string(), name: z.string(), trace_id: z.string() });

/** Traces that started before `cutoff`, oldest first, with their project (retention). */
export const tracesStartedBefore = async (db: CommonQueryMethods, cutoff: Date, limit: number) =>
  db.any(sql.type(expiredRow)`
    SELECT p.project_id::text, p.name, t.trace_id FROM traces t JOIN projects p ON p.id = t.project_id
    WHERE t.start_time < ${cutoff.toISOString()}::timestamptz
    ORDER BY t.start_time, t.id LIMIT ${limit}`);
