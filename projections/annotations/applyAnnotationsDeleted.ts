import { sql, type DatabaseTransactionConnection } from 'slonik';
import type { AnnotationsDeleted } from '../../domain/annotations/events.ts';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { clampedStorableTime } from '../../domain/base/storableTime.ts';
import { inProject } from './inProject.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TARGETS = new Set(['span', 'trace', 'session']);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** A bound outside the storable range (an old event's year 0) is clamped into it, keeping its direction. */
const time = clampedStorableTime;

/** A bulk delete: the annotations of the project's targets of one kind matching every filter present. */
export const applyAnnotationsDeleted = async (tx: DatabaseTransactionConnection, event: StoredEvent): Promise<void> => {
  const d = (event.data ?? {}) as Partial<Record<keyof AnnotationsDeleted['data'], unknown>>;
  if (typeof d.projectId !== 'string' || !UUID.test(d.projectId) || typeof d.target !== 'string' || !TARGETS.has(d.target)) return;
  const target = d.target as 'span' | 'trace' | 'session';
  const filters = [
    sql.fragment`a.target = ${target}`,
    inProject(target, d.projectId.toLowerCase()),
    ...(str(d.name) !== null ? [sql.fragment`a.name = ${str(d.name)!}`] : []),
    ...(str(d.identifier) !== null ? [sql.fragment`a.identifier = ${str(d.identifier)!}`] : []),
    ...(str(d.annotatorKind) !== null ? [sql.fragment`a.annotator_kind = ${str(d.annotatorKind)!}`] : []),
    ...(time(d.createdFrom) !== null ? [sql.fragment`a.created_at >= ${time(d.createdFrom)!}::timestamptz`] : []),
    ...(time(d.createdBefore) !== null ? [sql.fragment`a.created_at < ${time(d.createdBefore)!}::timestamptz`] : []),
    ...(str(d.authorUserId) !== null ? [sql.fragment`a.user_id = ${str(d.authorUserId)!}`] : []),
  ];
  await tx.query(sql.unsafe`DELETE FROM annotations a WHERE ${sql.join(filters, sql.fragment` AND `)}`);
};
