import { sql, type DatabaseTransactionConnection, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import type { TelemetryDeletionEvent } from '../../domain/tracing/events.ts';
import { expiredTraceIds } from '../../domain/tracing/expiredTraceIds.ts';
import { recomputeSessions, recomputeTraces } from './recompute.ts';
import { adjustTraceRollup } from '../metrics/traceRollup.ts';
import { dropExpiredSpanPartitions } from './spanPartitions.ts';

const rowids = (values: readonly bigint[]) => sql.array([...new Set(values.map(Number))], 'int8');
const json = (rows: readonly unknown[]) => sql.fragment`${JSON.stringify(rows)}::json`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What the event deletes, as `json_to_recordset` rows (a TracesExpired: one per listed trace). A
 * crafted event whose project is not a uuid, or whose id is not text Postgres can hold (a NUL
 * fails the `json` to `text` cast), matches nothing instead of failing the statement: no stored
 * row could carry such an id.
 */
const target = (e: StoredEvent & TelemetryDeletionEvent): { project_id: string; id: string; event_id: string }[] => {
  const projectId = e.data?.projectId;
  if (typeof projectId !== 'string' || !UUID.test(projectId)) return [];
  if (e.type === 'TracesExpired') return expiredTraceIds(e.data).map((id) => ({ project_id: projectId, id, event_id: e.id }));
  const id = e.type === 'SpanDeleted' ? e.data?.spanId : e.type === 'TraceDeleted' ? e.data?.traceId : e.data?.sessionId;
  return typeof id === 'string' && !id.includes('\u0000') ? [{ project_id: projectId, id, event_id: e.id }] : [];
};

/**
 * Notes, before the rows go, which spans a deletion takes from which SpansIngested events, for
 * the erasure reactor (projections/retention/erasureReactor.ts) to remove from the log. `match`
 * joins the spans (`s`) to the deletions (`x`, with the deleting event's id).
 */
export const recordErasures = async (tx: DatabaseTransactionConnection, x: FragmentSqlToken, match: FragmentSqlToken): Promise<void> => {
  await tx.query(sql.unsafe`
    INSERT INTO tracing_erasures (deletion_event, source_event, span_id, trace_id, session_id)
    SELECT x.event_id, s.source_event, s.span_id, s.trace_id, ss.session_id
    FROM ${x} JOIN spans s ON true ${match}
      LEFT JOIN traces t ON t.id = s.trace_rowid LEFT JOIN sessions ss ON ss.id = t.session_id
    WHERE s.source_event IS NOT NULL
    ON CONFLICT DO NOTHING`);
};

/** Erasure work done (a ContentRemoved record names the deletions it completed). */
export const forgetErasures = async (tx: DatabaseTransactionConnection, deletionEvents: readonly string[]): Promise<void> => {
  const ids = deletionEvents.filter((id) => UUID.test(id));
  if (ids.length === 0) return;
  await tx.query(sql.unsafe`DELETE FROM tracing_erasures WHERE deletion_event = ANY(${sql.array(ids, 'uuid')})`);
};

/**
 * Consecutive deletion events of one type, in one go (a bulk session delete is one append of many
 * events). Each matches only within its project, and one already applied matches nothing.
 */
export const applyTelemetryDeletions = async (
  tx: DatabaseTransactionConnection,
  type: TelemetryDeletionEvent['type'],
  events: readonly (StoredEvent & TelemetryDeletionEvent)[],
): Promise<void> => {
  const rows = events.flatMap(target);
  if (rows.length === 0) return;
  const x = sql.fragment`json_to_recordset(${json(rows)}) AS x(project_id uuid, id text, event_id uuid)`;
  switch (type) {
    case 'SpanDeleted': {
      await recordErasures(
        tx,
        x,
        sql.fragment`JOIN projects p ON s.project_id = p.id AND p.project_id = x.project_id AND s.span_id = x.id`,
      );
      // Children stay, as orphans; a trace whose last span goes is deleted by the recompute.
      const traces = await tx.anyFirst(sql.type(z.object({ trace_rowid: z.bigint() }))`
        DELETE FROM spans s USING projects p, json_to_recordset(${json(rows)}) AS x(project_id uuid, id text)
        WHERE p.project_id = x.project_id AND s.project_id = p.id AND s.span_id = x.id
        RETURNING s.trace_rowid`);
      await recomputeSessions(tx, await recomputeTraces(tx, traces.map(Number)));
      return;
    }
    // An expired trace goes exactly as a deleted one; its spans are noted for erasure under the TracesExpired.
    case 'TraceDeleted':
    case 'TracesExpired': {
      await recordErasures(
        tx,
        x,
        sql.fragment`JOIN projects p ON p.project_id = x.project_id JOIN traces t0 ON t0.project_id = p.id AND t0.trace_id = x.id AND s.trace_rowid = t0.id`,
      );
      await adjustTraceRollup(
        tx,
        sql.fragment`EXISTS (SELECT 1 FROM projects p, json_to_recordset(${json(rows)}) AS x(project_id uuid, id text)
          WHERE p.project_id = x.project_id AND t.project_id = p.id AND t.trace_id = x.id)`,
        -1,
      );
      const deleted = await tx.any(sql.type(z.object({ id: z.bigint(), session_id: z.bigint().nullable() }))`
        DELETE FROM traces t USING projects p, json_to_recordset(${json(rows)}) AS x(project_id uuid, id text)
        WHERE p.project_id = x.project_id AND t.project_id = p.id AND t.trace_id = x.id
        RETURNING t.id, t.session_id`);
      if (deleted.length === 0) return;
      // A retention run that expired every trace of a past week drops that week's partition
      // instead of deleting its rows (spanPartitions.ts; which weeks: domain/retention/expiredPeriods.ts).
      if (type === 'TracesExpired') await dropExpiredSpanPartitions(tx, events);
      await tx.query(sql.unsafe`DELETE FROM spans WHERE trace_rowid = ANY(${rowids(deleted.map((d) => d.id))})`);
      await recomputeSessions(
        tx,
        deleted.flatMap((d) => (d.session_id === null ? [] : [Number(d.session_id)])),
      );
      return;
    }
    case 'SessionDeleted': {
      await recordErasures(
        tx,
        x,
        sql.fragment`JOIN projects p ON p.project_id = x.project_id
          JOIN sessions s0 ON s0.project_id = p.id AND s0.session_id = x.id
          JOIN traces t0 ON t0.session_id = s0.id AND s.trace_rowid = t0.id`,
      );
      // Every trace of the session goes, whichever project it was sent to.
      const sessions = await tx.anyFirst(sql.type(z.object({ id: z.bigint() }))`
        DELETE FROM sessions s USING projects p, json_to_recordset(${json(rows)}) AS x(project_id uuid, id text)
        WHERE p.project_id = x.project_id AND s.project_id = p.id AND s.session_id = x.id
        RETURNING s.id`);
      if (sessions.length === 0) return;
      await adjustTraceRollup(tx, sql.fragment`t.session_id = ANY(${rowids(sessions)})`, -1);
      const traces = await tx.anyFirst(sql.type(z.object({ id: z.bigint() }))`
        DELETE FROM traces WHERE session_id = ANY(${rowids(sessions)}) RETURNING id`);
      if (traces.length > 0) await tx.query(sql.unsafe`DELETE FROM spans WHERE trace_rowid = ANY(${rowids(traces)})`);
      return;
    }
  }
};
