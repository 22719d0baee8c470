import { sql, type DatabaseTransactionConnection } from 'slonik';
import { storableAnnotation } from '../../domain/annotations/annotationRecord.ts';
import type { AnnotationsRemoved } from '../../domain/annotations/events.ts';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { annotationKey } from '../../domain/annotations/annotationKey.ts';

/** Single annotations by key; a key already gone matches nothing. */
export const applyAnnotationsRemoved = async (tx: DatabaseTransactionConnection, event: StoredEvent): Promise<void> => {
  const raw = (event.data as Partial<AnnotationsRemoved['data']> | null)?.annotations;
  // The key is normalised the way the recorded annotation was, so the same text finds the same row.
  const keys = (Array.isArray(raw) ? raw : [])
    .map((k) => storableAnnotation({ ...(typeof k === 'object' && k !== null ? k : {}), annotatorKind: 'HUMAN' }))
    .filter((a) => a !== null)
    .map(annotationKey);
  if (keys.length > 0) await tx.query(sql.unsafe`DELETE FROM annotations WHERE key = ANY(${sql.array(keys, 'text')})`);
};
