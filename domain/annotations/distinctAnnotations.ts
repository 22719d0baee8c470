import type { AnnotationRecord } from './events.ts';
import { annotationKey } from './annotationKey.ts';
import { storableAnnotation } from './annotationRecord.ts';

/** One annotation an event stores, by its upsert key. */
export type KeyedAnnotation = { readonly key: string; readonly annotation: AnnotationRecord };

/**
 * An `AnnotationsRecorded` event's annotations as the read model stores them, one per upsert key:
 * junk a crafted event holds left out (`storableAnnotation`), the last occurrence of a key wins and
 * takes the place of its last occurrence. The projector hands out row ids in this order, and a
 * removal from the log (erasedAnnotations.ts) names its slots in it, so both take it from here.
 */
export const distinctAnnotations = (raw: unknown): KeyedAnnotation[] => {
  const byKey = new Map<string, AnnotationRecord>();
  for (const item of Array.isArray(raw) ? raw : []) {
    const a = storableAnnotation(item);
    if (a === null) continue;
    const key = annotationKey(a);
    byKey.delete(key); // re-inserted last: the last occurrence wins and keeps its request order
    byKey.set(key, a);
  }
  return [...byKey].map(([key, annotation]) => ({ key, annotation }));
};
