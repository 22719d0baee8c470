import { createHash } from 'node:crypto';
import type { AnnotationRecord } from './events.ts';

/**
 * The upsert key of an annotation: (target, target id, document position, name, identifier).
 * Each part is prefixed by its length, so no two different tuples give the same text. Rows store
 * it (`annotations.key`) and the REST and GraphQL writes look ids up by it: its output must never change.
 */
export const annotationKey = (a: Pick<AnnotationRecord, 'target' | 'targetId' | 'documentPosition' | 'name' | 'identifier'>): string => {
  const parts = [a.target, a.targetId, a.documentPosition === null ? '' : String(a.documentPosition), a.name, a.identifier];
  return createHash('sha256')
    .update(parts.map((p) => `${p.length}:${p}`).join('|'))
    .digest('hex');
};
