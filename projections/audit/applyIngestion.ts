import { type DatabaseTransactionConnection, sql } from 'slonik';
import { z } from 'zod';
import type { Subjects } from '../../domain/audit/auditSubjects.ts';
import { withoutNul } from './withoutNul.ts';
import { comparePosition, type Position, positionToString, type StoredEvent } from '../../domain/eventstore/types.ts';

const HOUR_MS = 3_600_000;

/** The hour an event's time falls in (a crafted event's unreadable time counts as 1970). */
const hourOf = (time: unknown): string => {
  const ms = typeof time === 'string' ? Date.parse(time) : Number.NaN;
  return new Date(Number.isNaN(ms) ? 0 : Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString();
};

/** One ingestion row: a project's spans in one hour from one actor. */
type Bucket = {
  id: bigint;
  position: string;
  projectId: string;
  hour: string;
  actor: string;
  exports: number;
  spans: number;
  last: Position;
  /** The request (request id and time: one request's events share both) of the last event counted. */
  lastRequest: string;
  lastAt: string;
};

const existing = z.object({
  id: z.bigint(),
  position: z.string(),
  resource_key: z.string(),
  hour: z.string(),
  actor: z.string(),
  exports: z.number(),
  spans: z.bigint(),
  last_tx: z.string(),
  last_seq: z.bigint(),
  last_request: z.string(),
  last_at: z.string(),
});

const bucketKey = (projectId: string, hour: string, actor: string): string => JSON.stringify([projectId, hour, actor]);

/**
 * Span ingestion, summed: per project, hour (of the event's time) and actor, how many exports
 * and how many spans. An export is one request: the events one request appends for a project
 * follow each other and share its request id and time, so an event counts as a new export when
 * those differ from the last one counted (concurrent multi-event requests to the same project
 * from the same actor may be counted once per switch). Spans count as first received (removed
 * ones included: a removal is an entry of its own). Each row remembers the last event it counted,
 * so an event applied again is not counted twice.
 */
export const applyIngestion = async (
  tx: DatabaseTransactionConnection,
  events: readonly StoredEvent[],
  subjects: Subjects,
): Promise<void> => {
  if (events.length === 0) return;
  const touched = events.map((e) => {
    const data = (e.data ?? {}) as { projectId?: unknown; spans?: unknown; erased?: unknown };
    return {
      event: e,
      projectId: String(data.projectId ?? ''),
      hour: hourOf(e.metadata.time),
      actor: String(e.metadata.actor),
      spans: (Array.isArray(data.spans) ? data.spans.length : 0) + (Array.isArray(data.erased) ? data.erased.length : 0),
      request: `${e.metadata.requestId ?? e.id} ${e.metadata.time}`,
    };
  });
  const rows = await tx.any(sql.type(existing)`
    SELECT id, position, resource_key, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS hour, actor,
           exports, spans, last_tx::text AS last_tx, last_seq, last_request,
           to_char(last_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_at
    FROM audit_trail
    WHERE kind = 'ingestion' AND (resource_key, at, actor) IN (
      SELECT * FROM unnest(${sql.array(
        touched.map((t) => t.projectId),
        'text',
      )}::text[], ${sql.array(
        touched.map((t) => t.hour),
        'text',
      )}::timestamptz[], ${sql.array(
        touched.map((t) => t.actor),
        'text',
      )}::text[]))`);
  const buckets = new Map<string, Bucket>(
    rows.map((r) => [
      bucketKey(r.resource_key, r.hour, r.actor),
      {
        id: r.id,
        position: r.position,
        projectId: r.resource_key,
        hour: r.hour,
        actor: r.actor,
        exports: r.exports,
        spans: Number(r.spans),
        last: { tx: BigInt(r.last_tx), seq: r.last_seq },
        lastRequest: r.last_request,
        lastAt: r.last_at,
      },
    ]),
  );
  const changed = new Set<string>();
  for (const t of touched) {
    const key = bucketKey(t.projectId, t.hour, t.actor);
    const bucket = buckets.get(key);
    if (bucket === undefined) {
      buckets.set(key, {
        id: t.event.position.seq,
        position: positionToString(t.event.position),
        projectId: t.projectId,
        hour: t.hour,
        actor: t.actor,
        exports: 1,
        spans: t.spans,
        last: t.event.position,
        lastRequest: t.request,
        lastAt: t.event.metadata.time,
      });
    } else {
      if (comparePosition(t.event.position, bucket.last) <= 0) continue; // counted already
      if (t.request !== bucket.lastRequest) bucket.exports += 1;
      bucket.spans += t.spans;
      bucket.last = t.event.position;
      bucket.lastRequest = t.request;
      bucket.lastAt = t.event.metadata.time;
    }
    changed.add(key);
  }
  const upserts = [...changed].map((key) => {
    const b = buckets.get(key)!;
    const name = subjects.get('project', b.projectId).name ?? null;
    return {
      id: String(b.id),
      position: b.position,
      project_id: b.projectId,
      project_name: name,
      at: b.hour,
      actor: b.actor,
      summary: `${b.spans} span${b.spans === 1 ? '' : 's'} in ${b.exports} export${b.exports === 1 ? '' : 's'}${name === null ? '' : ` to project "${name}"`}`,
      exports: b.exports,
      spans: b.spans,
      last_tx: String(b.last.tx),
      last_seq: String(b.last.seq),
      last_position: positionToString(b.last),
      last_request: b.lastRequest,
      last_at: b.lastAt,
    };
  });
  if (upserts.length === 0) return;
  await tx.query(sql.unsafe`
    INSERT INTO audit_trail (id, kind, position, at, type, actor, resource_type, resource_key, resource_name, summary,
                             exports, spans, last_tx, last_seq, last_position, last_request, last_at)
    SELECT id, 'ingestion', position, at, 'SpansIngested', actor, 'Project', project_id, project_name, summary,
           exports, spans, last_tx, last_seq, last_position, last_request, last_at
    FROM jsonb_to_recordset(${sql.jsonb(withoutNul(upserts))}) AS r(
      id bigint, position text, project_id text, project_name text, at timestamptz, actor text, summary text,
      exports integer, spans bigint, last_tx numeric, last_seq bigint, last_position text, last_request text, last_at timestamptz)
    ON CONFLICT (id) DO UPDATE SET exports = excluded.exports, spans = excluded.spans, summary = excluded.summary,
      resource_name = excluded.resource_name, last_tx = excluded.last_tx, last_seq = excluded.last_seq,
      last_position = excluded.last_position, last_request = excluded.last_request, last_at = excluded.last_at`);
};
