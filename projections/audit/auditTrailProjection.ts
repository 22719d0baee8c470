import { type DatabaseTransactionConnection, sql } from 'slonik';
import { z } from 'zod';
import { Subjects, type SubjectState, subjectKeysOf } from '../../domain/audit/auditSubjects.ts';
import { AUDITED_TYPES, type AuditDescription, describeEvent } from '../../domain/audit/describeEvent.ts';
import { positionToString, type StoredEvent } from '../../domain/eventstore/types.ts';
import type { Projection } from '../projection.ts';
import { applyIngestion } from './applyIngestion.ts';
import { withoutNul } from './withoutNul.ts';

/** What an entry of an event whose content was removed says instead of its summary (the same live and rebuilt). */
export const ERASED_SUMMARY = 'Content removed from the log';

const subjectRow = z.object({ key: z.string(), state: z.record(z.string(), z.unknown()) });

/** The subjects the batch's events may name, read once per batch. */
const loadSubjects = async (tx: DatabaseTransactionConnection, events: readonly StoredEvent[]): Promise<Subjects> => {
  const keys = [...new Set(events.flatMap(subjectKeysOf))];
  const rows =
    keys.length === 0
      ? []
      : await tx.any(sql.type(subjectRow)`SELECT key, state FROM audit_subjects WHERE key = ANY(${sql.array(keys, 'text')})`);
  return new Subjects(new Map(rows.map((r) => [r.key, r.state as SubjectState])));
};

const saveSubjects = async (tx: DatabaseTransactionConnection, subjects: Subjects): Promise<void> => {
  const rows = [...subjects.changed].map((key) => ({ key, state: subjects.state(key) ?? {} }));
  if (rows.length === 0) return;
  await tx.query(sql.unsafe`
    INSERT INTO audit_subjects (key, state)
    SELECT key, state FROM jsonb_to_recordset(${sql.jsonb(withoutNul(rows))}) AS r(key text, state jsonb)
    ON CONFLICT (key) DO UPDATE SET state = excluded.state`);
};

/** The row of an event's entry (inserted with the batch's others in one statement). */
const entryRow = (stored: StoredEvent, told: AuditDescription) => {
  const meta = stored.metadata;
  const erasedBy = stored.erased ? positionToString(stored.erased.by) : null;
  return {
    id: String(stored.position.seq),
    position: positionToString(stored.position),
    event_id: stored.id,
    at: meta.time,
    type: stored.type,
    actor: String(meta.actor),
    request_id: meta.requestId === null ? null : String(meta.requestId),
    stream: stored.stream,
    resource_type: told.resource?.type ?? null,
    resource_key: told.resource?.key ?? null,
    resource_name: told.resource?.name ?? null,
    summary: erasedBy === null ? told.summary : ERASED_SUMMARY,
    changes: erasedBy === null ? told.changes : [],
    erased_by: erasedBy,
  };
};

const insertEntries = async (tx: DatabaseTransactionConnection, rows: readonly ReturnType<typeof entryRow>[]): Promise<void> => {
  if (rows.length === 0) return;
  await tx.query(sql.unsafe`
    INSERT INTO audit_trail (id, kind, position, event_id, at, type, actor, request_id, stream,
                             resource_type, resource_key, resource_name, summary, changes, erased_by)
    SELECT id, 'event', position, event_id, at, type, actor, request_id, stream,
           resource_type, resource_key, resource_name, summary, changes, erased_by
    FROM jsonb_to_recordset(${sql.jsonb(withoutNul(rows))}) AS r(
      id bigint, position text, event_id text, at timestamptz, type text, actor text, request_id text, stream text,
      resource_type text, resource_key text, resource_name text, summary text, changes jsonb, erased_by text)
    ON CONFLICT (id) DO NOTHING`);
};

/** A removal record marks the events it rewrote as erased, pointing at itself (as a rebuild finds them). */
const markErased = async (tx: DatabaseTransactionConnection, record: StoredEvent): Promise<void> => {
  const erased = (record.data as { erased?: unknown }).erased;
  const ids = Array.isArray(erased) ? erased.flatMap((e) => (typeof e?.id === 'string' ? [e.id as string] : [])) : [];
  if (ids.length === 0) return;
  await tx.query(sql.unsafe`
    UPDATE audit_trail SET erased_by = ${positionToString(record.position)}, summary = ${ERASED_SUMMARY}, changes = '[]'
    WHERE event_id = ANY(${sql.array(ids, 'text')})`);
};

/**
 * The audit trail (`GET /v1/audit/events`, GraphQL `auditEvents`, Settings › Audit): one entry per
 * event — who, when, on which request, to what, and what changed, told by `describeEvent` — except
 * span ingestion, which is summed per project, hour and actor (`applyIngestion.ts`): listing every
 * export would bury everything else. Entries are keyed by the event's global sequence number
 * (`id`: newest first, and the cursor). An event later removed by retention or erasure is marked
 * with its removal record's position and keeps no summary of what it held.
 */
export const auditTrailProjection: Projection = {
  name: 'audit_trail',
  eventTypes: AUDITED_TYPES,
  tables: ['audit_trail', 'audit_subjects'],
  migrations: [
    {
      id: 'audit_trail/0001_audit_trail',
      sql: `
        CREATE TABLE audit_trail (
          -- global sequence number of the event (of the first event, for an ingestion row): order and cursors
          id bigint PRIMARY KEY,
          kind text NOT NULL CHECK (kind IN ('event', 'ingestion')),
          position text NOT NULL,
          event_id text UNIQUE,
          -- the event's time; an ingestion row's hour
          at timestamptz NOT NULL,
          type text NOT NULL,
          actor text NOT NULL,
          request_id text,
          stream text,
          resource_type text,
          resource_key text,
          resource_name text,
          summary text NOT NULL,
          changes jsonb NOT NULL DEFAULT '[]',
          erased_by text,
          -- ingestion rows: exports and spans of one project in one hour from one actor
          exports integer,
          spans bigint,
          last_tx numeric,
          last_seq bigint,
          last_position text,
          last_request text,
          last_at timestamptz
        );
        CREATE UNIQUE INDEX audit_trail_ingestion ON audit_trail (resource_key, at, actor) WHERE kind = 'ingestion';
        CREATE INDEX audit_trail_actor ON audit_trail (actor, id DESC);
        CREATE INDEX audit_trail_type ON audit_trail (type, id DESC);
        CREATE INDEX audit_trail_resource ON audit_trail (resource_type, resource_key, id DESC);
        CREATE INDEX audit_trail_stream ON audit_trail (stream, id DESC);
        CREATE INDEX audit_trail_at ON audit_trail (at);
        CREATE TABLE audit_subjects (
          -- subjectKey(kind, id): 'user:<id>' and 'apikey:<id>' are also the actors of events
          key text PRIMARY KEY,
          state jsonb NOT NULL
        );
      `,
    },
  ],
  apply: async (tx, events) => {
    const subjects = await loadSubjects(tx, events);
    const ingested: StoredEvent[] = [];
    const entries: ReturnType<typeof entryRow>[] = [];
    for (const stored of events) {
      if (stored.type === 'SpansIngested') ingested.push(stored);
      else entries.push(entryRow(stored, describeEvent(stored, subjects)));
    }
    await insertEntries(tx, entries);
    // After the inserts: a record may name an event of the same batch.
    for (const stored of events) if (stored.type === 'ContentRemoved') await markErased(tx, stored);
    await saveSubjects(tx, subjects);
    await applyIngestion(tx, ingested, subjects);
  },
};
