import { inFirstOrder } from '../base/inFirstOrder.ts';
import { annotationKey } from './annotationKey.ts';
import { distinctAnnotations } from './distinctAnnotations.ts';
import { storableAnnotation } from './annotationRecord.ts';
import type { AnnotationRecord, AnnotationsRecorded, ErasedAnnotation } from './events.ts';

export type { ErasedAnnotation };

/** What an erasure takes annotations off: span (and their documents'), trace and session ids. */
export type AnnotationTargets = {
  readonly spanIds: ReadonlySet<string>;
  readonly traceIds: ReadonlySet<string>;
  readonly sessionIds: ReadonlySet<string>;
};

export const isOnErased = (a: Pick<AnnotationRecord, 'target' | 'targetId'>, t: AnnotationTargets): boolean =>
  a.target === 'span' || a.target === 'document'
    ? t.spanIds.has(a.targetId)
    : a.target === 'trace'
      ? t.traceIds.has(a.targetId)
      : a.target === 'session' && t.sessionIds.has(a.targetId);

/** One slot of an event's annotations in the projector's order: an annotation, or where a removed one was. */
export type AnnotationSlot<A> =
  | { readonly annotation: A; readonly erased?: undefined }
  | { readonly annotation?: undefined; readonly erased: ErasedAnnotation };

/** The removed annotations an event's data records (checked: a crafted event's junk and repeated slots are left out). */
export const erasedAnnotationsOf = (data: unknown): ErasedAnnotation[] => {
  const raw = (data as { erased?: unknown } | null | undefined)?.erased;
  if (!Array.isArray(raw)) return [];
  const seen = new Set<number>();
  return raw.flatMap((e: unknown) => {
    const at = (typeof e === 'object' && e !== null ? (e as Record<string, unknown>) : {}).at;
    if (typeof at !== 'number' || !Number.isSafeInteger(at) || at < 0 || seen.has(at)) return [];
    seen.add(at);
    return [{ at }];
  });
};

/**
 * The event's annotations (one per key, in order) and removed annotations merged back into the
 * order the projector first met them. A stub whose slot lies past the end (a crafted event) comes
 * after the others, in order.
 */
export const annotationSlots = <A>(annotations: readonly A[], erasedAnnotations: readonly ErasedAnnotation[]): AnnotationSlot<A>[] =>
  inFirstOrder(annotations, erasedAnnotations, (annotation) => ({ annotation }));

/**
 * An `AnnotationsRecorded` event's data without the annotations (and notes) on erased targets,
 * or undefined when it holds none. Every occurrence of a removed key goes, and the key's slot
 * becomes an `ErasedAnnotation` beside those a former removal left. Junk a crafted event holds
 * (no storable target) stays as stored: it is on no target. Pure: the rewrite a removal runs
 * inside the store.
 */
export const withoutAnnotations = (data: unknown, targets: AnnotationTargets): AnnotationsRecorded['data'] | undefined => {
  const d = data as AnnotationsRecorded['data'];
  if (!Array.isArray(d?.annotations)) return undefined;
  const slots = annotationSlots(distinctAnnotations(d.annotations), erasedAnnotationsOf(d));
  const removedKeys = new Set<string>();
  const erased: ErasedAnnotation[] = [];
  slots.forEach((slot, at) => {
    if (slot.erased) erased.push(slot.erased);
    else if (isOnErased(slot.annotation.annotation, targets)) {
      removedKeys.add(slot.annotation.key);
      erased.push({ at });
    }
  });
  if (removedKeys.size === 0) return undefined;
  const kept = d.annotations.filter((raw) => {
    const a = storableAnnotation(raw);
    return a === null || !removedKeys.has(annotationKey(a));
  });
  return { ...d, annotations: kept, erased };
};
