import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import type { SpansIngestedData, TelemetryDeletionEvent } from '../../domain/tracing/events.ts';
import { erasedSpansOf, spanSlots } from '../../domain/tracing/erasedSpans.ts';
import { expiredTraceIds } from '../../domain/tracing/expiredTraceIds.ts';
import { storableName } from '../../domain/base/storableText.ts';
import { genAiSessionId } from '../../domain/tracing/openInferenceFromGenAi.ts';
import { placeNewSpans, restartTraces, spanStartOf } from './targetStart.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const text = (values: readonly string[]) => sql.array([...new Set(values)], 'text');
const uuidOf = (data: unknown): string | null => {
  const id = (data as { projectId?: unknown } | null)?.projectId;
  return typeof id === 'string' && UUID.test(id) ? id.toLowerCase() : null;
};
const textField = (data: unknown, field: string): string | null => {
  const v = (data as Record<string, unknown> | null)?.[field];
  return typeof v === 'string' ? v : null;
};

/**
 * The ids and start time of an event's spans as the tracing projector stores them (`storableSpan`'s
 * rules for these four fields only: the whole-span normalisation walks every attribute, which this
 * model does not need).
 */
const targetIdsOf = (data: unknown): { traceId: string; spanId: string | null; sessionId: string | null; startTime: string | null }[] => {
  const spans = (data as Partial<SpansIngestedData> | null)?.spans;
  if (!Array.isArray(spans)) return [];
  // A span removed since (erasedSpans.ts) still gave its trace a project and a session live, in
  // this order; it is no annotation target any more.
  return spanSlots(spans as unknown[], erasedSpansOf(data)).map((slot) => {
    if (slot.erased) return { traceId: slot.erased.traceId, spanId: null, sessionId: slot.erased.sessionId, startTime: null };
    const raw = slot.span;
    const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    return {
      traceId: storableName(typeof r.traceId === 'string' ? r.traceId : ''),
      spanId: storableName(typeof r.spanId === 'string' ? r.spanId : ''),
      // A GenAI conversation id is the session of a span that sends no session.id (openInferenceFromGenAi.ts).
      sessionId: typeof r.sessionId === 'string' && r.sessionId.trim() !== '' ? storableName(r.sessionId) : genAiSessionId(r.attributes),
      startTime: spanStartOf(r),
    };
  });
};

/**
 * Which spans, traces and sessions exist and where, kept by the same rules as the tracing
 * projector (a trace stays in the project that created it; the first session id seen for a trace
 * wins; a session belongs to the project of the trace that brought it; spans sent to a deleted
 * project are dropped), from the events alone. Consecutive `SpansIngested` events in one go.
 */
export const recordTargets = async (tx: DatabaseTransactionConnection, events: readonly StoredEvent[]): Promise<void> => {
  const live = new Set(
    await tx.anyFirst(sql.type(z.object({ project_id: z.string() }))`
      SELECT project_id::text FROM annotation_project_scope
      WHERE project_id = ANY(${sql.array([...new Set(events.map((e) => uuidOf(e.data)).filter((p): p is string => p !== null))], 'uuid')})`),
  );
  // In log order: a trace's first project and first session id win, as does a span's first trace.
  const traces = new Map<string, { project: string; session: string | null }>();
  const spans = new Map<string, { traceId: string; startTime: string | null }>();
  // As in the tracing projector: a removed span still decides its trace's project and session,
  // but a trace is only recorded when a span of it is still there.
  const withSpans = new Set<string>();
  for (const event of events) {
    const projectId = uuidOf(event.data);
    if (projectId === null || !live.has(projectId)) continue;
    for (const span of targetIdsOf(event.data)) {
      const trace = traces.get(span.traceId);
      if (trace === undefined) traces.set(span.traceId, { project: projectId, session: span.sessionId });
      else if (trace.session === null && span.sessionId !== null) trace.session = span.sessionId;
      if (span.spanId === null) continue;
      withSpans.add(span.traceId);
      if (!spans.has(span.spanId)) spans.set(span.spanId, { traceId: span.traceId, startTime: span.startTime });
    }
  }
  if (spans.size === 0) return;
  const traceIds = [...traces.keys()].filter((id) => withSpans.has(id));
  // A new trace takes its project and session; a known one keeps its project and gets a session only while it has none.
  const linked = await tx.any(sql.type(z.object({ trace_id: z.string(), project_id: z.string(), session_id: z.string().nullable() }))`
    INSERT INTO annotation_trace_scope AS t (trace_id, project_id, session_id)
    SELECT * FROM unnest(${sql.array(traceIds, 'text')}::text[], ${sql.array(
      traceIds.map((id) => traces.get(id)!.project),
      'uuid',
    )}::uuid[], ${sql.array(
      traceIds.map((id) => traces.get(id)!.session),
      'text',
    )}::text[])
    ON CONFLICT (trace_id) DO UPDATE SET session_id = excluded.session_id
      WHERE t.session_id IS NULL AND excluded.session_id IS NOT NULL
    RETURNING t.trace_id, t.project_id::text, t.session_id`);
  const spanIds = [...spans.keys()];
  // Only the spans new to the scope (a span id already taken keeps its trace and start, as in tracing).
  const fresh = await tx.anyFirst(sql.type(z.object({ span_id: z.string() }))`
    INSERT INTO annotation_span_scope (span_id, trace_id, start_time)
    SELECT * FROM unnest(${sql.array(spanIds, 'text')}::text[], ${sql.array(
      spanIds.map((id) => spans.get(id)!.traceId),
      'text',
    )}::text[], ${sql.array(
      spanIds.map((id) => spans.get(id)!.startTime),
      'timestamptz',
    )}::timestamptz[])
    ON CONFLICT (span_id) DO NOTHING
    RETURNING span_id`);
  await placeNewSpans(
    tx,
    fresh.map((id) => ({ span_id: id, trace_id: spans.get(id)!.traceId, start_time: spans.get(id)!.startTime })),
  );
  // A session belongs to the project of the trace that brought it: the first such trace in log order.
  const sessions = new Map<string, string>();
  const order = new Map(traceIds.map((id, i) => [id, i]));
  for (const row of [...linked].sort((a, b) => order.get(a.trace_id)! - order.get(b.trace_id)!))
    if (row.session_id !== null && !sessions.has(row.session_id)) sessions.set(row.session_id, row.project_id);
  if (sessions.size === 0) return;
  await tx.query(sql.unsafe`
    INSERT INTO annotation_session_scope (session_id, project_id)
    SELECT * FROM unnest(${sql.array([...sessions.keys()], 'text')}::text[], ${sql.array([...sessions.values()], 'uuid')}::uuid[])
    ON CONFLICT (session_id) DO NOTHING`);
};

/** Sessions left without traces go (as in tracing), with their annotations. */
const pruneSessions = async (tx: DatabaseTransactionConnection, sessionIds: readonly string[]): Promise<void> => {
  if (sessionIds.length === 0) return;
  const gone = await tx.anyFirst(sql.type(z.object({ session_id: z.string() }))`
    DELETE FROM annotation_session_scope s WHERE s.session_id = ANY(${text(sessionIds)})
      AND NOT EXISTS (SELECT 1 FROM annotation_trace_scope t WHERE t.session_id = s.session_id)
    RETURNING s.session_id`);
  if (gone.length > 0) await tx.query(sql.unsafe`DELETE FROM annotations WHERE target = 'session' AND target_id = ANY(${text(gone)})`);
};

/** Traces with their spans, and every annotation on any of them or their documents. */
const removeTraces = async (tx: DatabaseTransactionConnection, traceIds: readonly string[]): Promise<void> => {
  if (traceIds.length === 0) return;
  const spans = await tx.anyFirst(sql.type(z.object({ span_id: z.string() }))`
    DELETE FROM annotation_span_scope WHERE trace_id = ANY(${text(traceIds)}) RETURNING span_id`);
  if (spans.length > 0)
    await tx.query(sql.unsafe`DELETE FROM annotations WHERE target IN ('span', 'document') AND target_id = ANY(${text(spans)})`);
  await tx.query(sql.unsafe`DELETE FROM annotations WHERE target = 'trace' AND target_id = ANY(${text(traceIds)})`);
  const sessions = await tx.anyFirst(sql.type(z.object({ session_id: z.string().nullable() }))`
    DELETE FROM annotation_trace_scope WHERE trace_id = ANY(${text(traceIds)}) RETURNING session_id`);
  await pruneSessions(
    tx,
    sessions.filter((s): s is string => s !== null),
  );
};

/**
 * A deletion of telemetry takes the annotations with it, matched within its project exactly as
 * the tracing projector matches: a span (its trace goes when it was the last), a trace with its
 * spans (an expired one alike), a session with all its traces.
 */
export const removeTargets = async (tx: DatabaseTransactionConnection, event: StoredEvent & TelemetryDeletionEvent): Promise<void> => {
  const projectId = uuidOf(event.data);
  if (projectId === null) return;
  switch (event.type) {
    case 'SpanDeleted': {
      const spanId = textField(event.data, 'spanId');
      if (spanId === null) return;
      const trace = await tx.maybeOneFirst(sql.type(z.object({ trace_id: z.string() }))`
        DELETE FROM annotation_span_scope s USING annotation_trace_scope t
        WHERE s.span_id = ${spanId} AND t.trace_id = s.trace_id AND t.project_id = ${projectId}
        RETURNING s.trace_id`);
      if (trace === null) return;
      await tx.query(sql.unsafe`DELETE FROM annotations WHERE target IN ('span', 'document') AND target_id = ${spanId}`);
      const empty = await tx.exists(sql.unsafe`SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM annotation_span_scope WHERE trace_id = ${trace})`);
      if (empty) await removeTraces(tx, [trace]);
      else await restartTraces(tx, [trace]);
      return;
    }
    case 'TraceDeleted': {
      const traceId = textField(event.data, 'traceId');
      if (traceId === null) return;
      const found = await tx.exists(
        sql.unsafe`SELECT 1 FROM annotation_trace_scope WHERE trace_id = ${traceId} AND project_id = ${projectId}`,
      );
      if (found) await removeTraces(tx, [traceId]);
      return;
    }
    case 'TracesExpired': {
      const traceIds = expiredTraceIds(event.data);
      if (traceIds.length === 0) return;
      const found = await tx.anyFirst(sql.type(z.object({ trace_id: z.string() }))`
        SELECT trace_id FROM annotation_trace_scope WHERE trace_id = ANY(${text(traceIds)}) AND project_id = ${projectId}`);
      await removeTraces(tx, found);
      return;
    }
    case 'SessionDeleted': {
      const sessionId = textField(event.data, 'sessionId');
      if (sessionId === null) return;
      const found = await tx.exists(
        sql.unsafe`SELECT 1 FROM annotation_session_scope WHERE session_id = ${sessionId} AND project_id = ${projectId}`,
      );
      if (!found) return;
      const traces = await tx.anyFirst(
        sql.type(z.object({ trace_id: z.string() }))`SELECT trace_id FROM annotation_trace_scope WHERE session_id = ${sessionId}`,
      );
      await removeTraces(tx, traces);
      await tx.query(sql.unsafe`DELETE FROM annotation_session_scope WHERE session_id = ${sessionId}`);
      await tx.query(sql.unsafe`DELETE FROM annotations WHERE target = 'session' AND target_id = ${sessionId}`);
      return;
    }
  }
};

/** A project's birth and death: its traces, spans and sessions go with it, and their annotations and config assignments. */
export const applyProjectScope = async (tx: DatabaseTransactionConnection, event: StoredEvent): Promise<void> => {
  const projectId = uuidOf(event.data);
  if (projectId === null) return;
  if (event.type === 'ProjectCreated') {
    await tx.query(sql.unsafe`INSERT INTO annotation_project_scope (project_id) VALUES (${projectId}) ON CONFLICT DO NOTHING`);
    return;
  }
  if (event.type !== 'ProjectDeleted') return;
  const traces = await tx.anyFirst(
    sql.type(z.object({ trace_id: z.string() }))`SELECT trace_id FROM annotation_trace_scope WHERE project_id = ${projectId}`,
  );
  await removeTraces(tx, traces);
  // Its sessions go even where other projects' traces share them; those traces just lose the session.
  const sessions = await tx.anyFirst(sql.type(z.object({ session_id: z.string() }))`
    DELETE FROM annotation_session_scope WHERE project_id = ${projectId} RETURNING session_id`);
  if (sessions.length > 0) {
    await tx.query(sql.unsafe`UPDATE annotation_trace_scope SET session_id = NULL WHERE session_id = ANY(${text(sessions)})`);
    await tx.query(sql.unsafe`DELETE FROM annotations WHERE target = 'session' AND target_id = ANY(${text(sessions)})`);
  }
  await tx.query(sql.unsafe`DELETE FROM project_annotation_configs WHERE project_id = ${projectId}`);
  await tx.query(sql.unsafe`DELETE FROM annotation_project_scope WHERE project_id = ${projectId}`);
};

/** Who a user key acts for (system keys act for nobody in particular). */
export const recordKeyOwner = async (tx: DatabaseTransactionConnection, event: StoredEvent): Promise<void> => {
  const keyId = textField(event.data, 'keyId');
  if (keyId === null) return;
  await tx.query(sql.unsafe`
    INSERT INTO annotation_key_owners (key_id, user_id) VALUES (${keyId}, ${textField(event.data, 'ownerUserId')})
    ON CONFLICT DO NOTHING`);
};
