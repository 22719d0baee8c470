import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import type { ProjectEvent } from '../../domain/projects/events.ts';
import { clippedText, MESSAGE_MAX_BYTES, storableName } from '../../domain/base/storableText.ts';
import type { IdAllocator } from '../tracing/idAllocator.ts';
import { recordErasures } from '../tracing/applyTelemetryDeletions.ts';
import { recomputeSessions } from '../tracing/recompute.ts';
import { dropProjectRollup } from '../metrics/traceRollup.ts';

const ids = (values: readonly bigint[]) => sql.array([...new Set(values.map(Number))], 'int8');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Text as the columns can hold it (`storable.ts`): the decider refuses names Postgres cannot
 * store, but events written before it did are still in the log and must replay the same way.
 * A name cut to the same text as an existing project's conflicts and is not inserted (its spans
 * are then dropped, as for a deleted project): deterministic, live and in a rebuild.
 */
const name = (v: unknown) => storableName(typeof v === 'string' ? v : '');
const text = (v: unknown) => (typeof v === 'string' ? clippedText(v, MESSAGE_MAX_BYTES) : null);
const color = (v: unknown) => (typeof v === 'string' ? storableName(v) : undefined);

/** A project's row, and on deletion everything recorded in it (its sessions too, even where other projects' traces share them). */
export const applyProjectEvent = async (
  tx: DatabaseTransactionConnection,
  e: StoredEvent & ProjectEvent,
  allocate: IdAllocator,
): Promise<void> => {
  const at = e.metadata.time;
  // Every project event names its project by uuid; anything else (a crafted event) matches none.
  if (typeof e.data?.projectId !== 'string' || !UUID.test(e.data.projectId)) return;
  switch (e.type) {
    case 'ProjectCreated': {
      const d = e.data;
      await tx.query(sql.unsafe`
        INSERT INTO projects (id, project_id, name, description, gradient_start_color, gradient_end_color, created_at, updated_at)
        VALUES (${allocate.next('project')}, ${d.projectId}, ${name(d.name)}, ${text(d.description)}, ${color(d.gradientStartColor) ?? ''},
          ${color(d.gradientEndColor) ?? ''}, ${at}, ${at})
        ON CONFLICT DO NOTHING`);
      return;
    }
    case 'ProjectUpdated': {
      const d = e.data;
      const set = [
        ...(d.description !== undefined ? [sql.fragment`description = ${text(d.description)}`] : []),
        ...(color(d.gradientStartColor) !== undefined ? [sql.fragment`gradient_start_color = ${color(d.gradientStartColor)!}`] : []),
        ...(color(d.gradientEndColor) !== undefined ? [sql.fragment`gradient_end_color = ${color(d.gradientEndColor)!}`] : []),
        sql.fragment`updated_at = ${at}`,
      ];
      await tx.query(sql.unsafe`UPDATE projects SET ${sql.join(set, sql.fragment`, `)} WHERE project_id = ${d.projectId}`);
      return;
    }
    case 'ProjectRestrictionSet':
      await tx.query(sql.unsafe`
        UPDATE projects SET restricted = ${e.data.restricted === true}, updated_at = ${at} WHERE project_id = ${e.data.projectId}`);
      return;
    case 'ProjectGrantSet':
      await tx.query(sql.unsafe`
        INSERT INTO project_grants (project_id, user_id, role, granted_at)
        SELECT id, ${String(e.data.userId)}, ${String(e.data.role)}, ${at} FROM projects WHERE project_id = ${e.data.projectId}
        ON CONFLICT (project_id, user_id) DO UPDATE SET role = EXCLUDED.role, granted_at = EXCLUDED.granted_at`);
      return;
    case 'ProjectGrantRevoked':
      await tx.query(sql.unsafe`
        DELETE FROM project_grants WHERE user_id = ${String(e.data.userId)}
          AND project_id = (SELECT id FROM projects WHERE project_id = ${e.data.projectId})`);
      return;
    case 'ProjectDeleted': {
      const project = await tx.maybeOneFirst(
        sql.type(z.object({ id: z.bigint() }))`SELECT id FROM projects WHERE project_id = ${e.data.projectId}`,
      );
      if (project === null) return;
      await recordErasures(tx, sql.fragment`(SELECT ${e.id}::uuid AS event_id) x`, sql.fragment`AND s.project_id = ${project}`);
      await tx.query(sql.unsafe`DELETE FROM spans WHERE project_id = ${project}`);
      const touched = await tx.anyFirst(sql.type(z.object({ session_id: z.bigint() }))`
        DELETE FROM traces WHERE project_id = ${project} AND session_id IS NOT NULL RETURNING session_id`);
      await tx.query(sql.unsafe`DELETE FROM traces WHERE project_id = ${project}`);
      await dropProjectRollup(tx, project);
      const gone = await tx.anyFirst(
        sql.type(z.object({ id: z.bigint() }))`DELETE FROM sessions WHERE project_id = ${project} RETURNING id`,
      );
      if (gone.length > 0) await tx.query(sql.unsafe`UPDATE traces SET session_id = NULL WHERE session_id = ANY(${ids(gone)})`);
      const goneSet = new Set(gone);
      await recomputeSessions(tx, touched.filter((s) => !goneSet.has(s)).map(Number));
      await tx.query(sql.unsafe`DELETE FROM project_grants WHERE project_id = ${project}`);
      await tx.query(sql.unsafe`DELETE FROM projects WHERE id = ${project}`);
      return;
    }
  }
};
