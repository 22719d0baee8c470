import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import type { SpansIngested, SpansIngestedData } from '../../domain/tracing/events.ts';
import { nanosToIsoMicros } from '../../domain/tracing/nanoTime.ts';
import { storableBatch } from '../../domain/tracing/storable.ts';
import type { IdAllocator } from './idAllocator.ts';
import { attributeIndexOfRow } from './attributeFilter.ts';
import { recomputeSessions, recomputeTraces } from './recompute.ts';
import { spanInsertRow, type SpanInsertRow } from './spanInsertRow.ts';

type TraceCandidate = { id: number; trace_id: string; project_id: number; start_time: string; end_time: string };
type SessionCandidate = { id: number; session_id: string; trace_id: string };

const json = (rows: readonly unknown[]) => sql.fragment`${JSON.stringify(rows)}::jsonb`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The event's batch as it may be stored (`storable.ts`): ingest normalises before appending, but
 * the log also holds events written before those rules, and a replay must build the same rows
 * from them as the live run did. A project id that is not a uuid (a crafted event) matches no project.
 */
const storedBatch = ({ data }: StoredEvent & SpansIngested): SpansIngestedData => {
  const projectId =
    typeof data?.projectId === 'string' && UUID.test(data.projectId)
      ? data.projectId.toLowerCase()
      : '00000000-0000-0000-0000-000000000000';
  return { ...storableBatch(data), projectId };
};

/**
 * Applies consecutive `SpansIngested` events with a fixed number of statements, however many
 * spans they hold: every row travels in one JSON array parameter. Duplicates (a span id already
 * stored, or repeated in the batch) are skipped by `ON CONFLICT DO NOTHING`; inserting in row-id
 * order makes the first occurrence win, as in a replay.
 */
export const applySpansIngested = async (
  tx: DatabaseTransactionConnection,
  events: readonly (StoredEvent & SpansIngested)[],
  ids: IdAllocator,
): Promise<void> => {
  const batches = events.map(storedBatch);
  const projectIds = [...new Set(batches.map((b) => b.projectId))];
  const projects = new Map(
    (
      await tx.any(sql.type(z.object({ id: z.bigint(), project_id: z.string() }))`
        SELECT id, project_id::text FROM projects WHERE project_id = ANY(${sql.array(projectIds, 'uuid')})`)
    ).map((r) => [r.project_id, Number(r.id)]),
  );

  const traces: TraceCandidate[] = [];
  const spans: SpanInsertRow[] = [];
  const sessions: SessionCandidate[] = [];
  for (const batch of batches) {
    const project = projects.get(batch.projectId);
    // The project was deleted after these spans were acknowledged: they went with it.
    if (project === undefined) continue;
    // Ids are allocated per event (never per batch), so a replay allocates the same ones.
    const eventTraces = new Map<string, TraceCandidate>();
    const eventSessions = new Map<string, number>();
    const traceSession = new Map<string, string>();
    for (const span of batch.spans) {
      if (!eventTraces.has(span.traceId)) {
        const [start_time, end_time] = [nanosToIsoMicros(span.startTimeUnixNano), nanosToIsoMicros(span.endTimeUnixNano)];
        eventTraces.set(span.traceId, { id: ids.next('trace'), trace_id: span.traceId, project_id: project, start_time, end_time });
      }
      spans.push(spanInsertRow(ids.next('span'), span));
      if (span.sessionId !== null && !traceSession.has(span.traceId)) {
        traceSession.set(span.traceId, span.sessionId);
        if (!eventSessions.has(span.sessionId)) eventSessions.set(span.sessionId, ids.next('session'));
      }
    }
    traces.push(...eventTraces.values());
    for (const [traceId, sessionId] of traceSession)
      sessions.push({ id: eventSessions.get(sessionId)!, session_id: sessionId, trace_id: traceId });
  }
  if (spans.length === 0) return;
  // First occurrence wins among repeats within these events; rows already stored win over both.
  // Deduplicating here rather than ordering the INSERT spares Postgres a sort of megabytes of rows.
  const seen = new Set<string>();
  const firstSpans = spans.filter((s) => !seen.has(s.span_id) && seen.add(s.span_id));

  // A trace keeps the project it was created in (its placeholder times are recomputed below).
  await tx.query(sql.unsafe`
    INSERT INTO traces (id, trace_id, project_id, start_time, end_time)
    SELECT id, trace_id, project_id, start_time, end_time
    FROM jsonb_to_recordset(${json(traces)}) AS x(id bigint, trace_id text, project_id bigint, start_time timestamptz, end_time timestamptz)
    ORDER BY id
    ON CONFLICT (trace_id) DO NOTHING`);

  const touched = await tx.anyFirst(sql.type(z.object({ trace_rowid: z.bigint() }))`
    WITH inserted AS (
      INSERT INTO spans (id, span_id, trace_rowid, trace_id, project_id, parent_id, name, span_kind, otel_kind, status_code,
        status_message, start_time, end_time, attributes, attribute_index, events, llm_token_count_prompt, llm_token_count_completion)
      SELECT x.id, x.span_id, t.id, x.trace_id, t.project_id, x.parent_id, x.name, x.span_kind, x.otel_kind, x.status_code,
        x.status_message, x.start_time, x.end_time, x.attributes,
        ${attributeIndexOfRow('x')}, x.events, x.llm_token_count_prompt, x.llm_token_count_completion
      FROM jsonb_to_recordset(${json(firstSpans)}) AS x(id bigint, span_id text, trace_id text, parent_id text, name text, span_kind text,
        otel_kind text, status_code text, status_message text, start_time timestamptz, end_time timestamptz, attributes jsonb,
        events jsonb, llm_token_count_prompt bigint, llm_token_count_completion bigint)
      JOIN traces t ON t.trace_id = x.trace_id
      ON CONFLICT (span_id) DO NOTHING
      RETURNING trace_rowid
    )
    SELECT DISTINCT trace_rowid FROM inserted`);
  const sessionsToRecompute = await recomputeTraces(tx, touched.map(Number));

  if (sessions.length > 0) {
    // The first session id seen for a trace wins (the earliest candidate, and only while the trace
    // has none): later spans cannot move a trace, nor create a session no trace belongs to.
    const firsts = sql.fragment`(
      SELECT DISTINCT ON (trace_id) id, session_id, trace_id
      FROM jsonb_to_recordset(${json(sessions)}) AS x(id bigint, session_id text, trace_id text)
      ORDER BY trace_id, id
    )`;
    // A new session belongs to the project of the trace that brought it.
    await tx.query(sql.unsafe`
      INSERT INTO sessions (id, session_id, project_id, start_time, end_time)
      SELECT f.id, f.session_id, t.project_id, t.start_time, t.end_time
      FROM ${firsts} f JOIN traces t ON t.trace_id = f.trace_id
      WHERE t.session_id IS NULL
      ORDER BY f.id
      ON CONFLICT (session_id) DO NOTHING`);
    const linked = await tx.anyFirst(sql.type(z.object({ session_id: z.bigint() }))`
      UPDATE traces t SET session_id = s.id
      FROM ${firsts} f JOIN sessions s ON s.session_id = f.session_id
      WHERE t.trace_id = f.trace_id AND t.session_id IS NULL
      RETURNING t.session_id`);
    sessionsToRecompute.push(...linked.map(Number));
  }
  await recomputeSessions(tx, sessionsToRecompute);
};
