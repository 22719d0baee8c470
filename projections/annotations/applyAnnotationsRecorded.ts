import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { distinctAnnotations } from '../../domain/annotations/distinctAnnotations.ts';
import { annotationSlots, erasedAnnotationsOf } from '../../domain/annotations/erasedAnnotations.ts';
import type { AnnotationsRecorded } from '../../domain/annotations/events.ts';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { targetPlacement } from './targetStart.ts';

const json = (rows: readonly unknown[]) => sql.fragment`${JSON.stringify(rows)}::jsonb`;

/** The user an actor stands for: a user itself, a user key's owner; nobody for the system or auth off. */
const authorOf = async (tx: DatabaseTransactionConnection, actor: string): Promise<string | null> => {
  if (actor.startsWith('user:')) return actor.slice('user:'.length);
  if (actor.startsWith('apikey:')) {
    return tx.maybeOneFirst(
      sql.type(
        z.object({ user_id: z.string().nullable() }),
      )`SELECT user_id FROM annotation_key_owners WHERE key_id = ${actor.slice('apikey:'.length)}`,
    );
  }
  return null;
};

/**
 * One request's annotations in one statement: new keys get the next row ids (handed out per
 * event in request order, so a replay hands out the same ones; removed annotations keep their
 * place), existing keys are overwritten in every field but their id and creation time — nulls
 * too, as the reference does. Within one
 * event the last annotation of a key wins. A new row on a known span or trace takes its target's
 * project and start time (targetStart.ts); an existing row has them already (same target).
 */
export const applyAnnotationsRecorded = async (tx: DatabaseTransactionConnection, event: StoredEvent): Promise<void> => {
  const data = event.data as Partial<AnnotationsRecorded['data']> | null;
  const source = data?.source === 'APP' ? 'APP' : 'API';
  // Annotations removed from the log since (erasedAnnotations.ts) took a row id live, one per slot:
  // they take it here too, without a row, so every later annotation keeps its id.
  const slots = annotationSlots(distinctAnnotations(data?.annotations), erasedAnnotationsOf(data));
  if (slots.length === 0) return;
  const first = await tx.oneFirst(sql.type(z.object({ last: z.bigint() }))`
    UPDATE annotation_ids SET last = last + ${slots.length} WHERE kind = 'annotation' RETURNING last - ${slots.length} AS last`);
  const rows = slots.flatMap((slot, i) => {
    if (slot.erased) return [];
    const { key, annotation: a } = slot.annotation;
    return [
      {
        id: Number(first) + i + 1,
        key,
        target: a.target,
        target_id: a.targetId,
        document_position: a.documentPosition,
        name: a.name,
        identifier: a.identifier,
        annotator_kind: a.annotatorKind,
        label: a.label,
        score: a.score,
        explanation: a.explanation,
        metadata: a.metadata,
      },
    ];
  });
  if (rows.length === 0) return;
  const actor = typeof event.metadata.actor === 'string' ? event.metadata.actor : 'unknown';
  const userId = await authorOf(tx, actor);
  const at = event.metadata.time;
  await tx.query(sql.unsafe`
    INSERT INTO annotations (id, key, target, target_id, document_position, name, identifier, annotator_kind, label, score,
      explanation, metadata, source, actor, user_id, created_at, updated_at, target_project, target_start)
    SELECT x.id, x.key, x.target, x.target_id, x.document_position, x.name, x.identifier, x.annotator_kind, x.label, x.score,
      x.explanation, coalesce(x.metadata, '{}'::jsonb), ${source}, ${actor}, ${userId}, ${at}, ${at},
      ${targetPlacement.project}, ${targetPlacement.start}
    FROM jsonb_to_recordset(${json(rows)}) AS x(id bigint, key text, target text, target_id text, document_position integer,
      name text, identifier text, annotator_kind text, label text, score double precision, explanation text, metadata jsonb)
      ${targetPlacement.joins}
    ORDER BY x.id
    ON CONFLICT (key) DO UPDATE SET
      annotator_kind = excluded.annotator_kind, label = excluded.label, score = excluded.score,
      explanation = excluded.explanation, metadata = excluded.metadata, source = excluded.source,
      actor = excluded.actor, user_id = excluded.user_id, updated_at = excluded.updated_at`);
};
