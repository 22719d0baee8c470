import type { AnnotationRecord, AnnotationsRecorded } from './events.ts';

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

/**
 * An `AnnotationsRecorded` event's data without the annotations (and notes) on erased targets,
 * or undefined when it holds none. Pure: the rewrite a removal runs inside the store.
 */
export const withoutAnnotations = (data: unknown, targets: AnnotationTargets): AnnotationsRecorded['data'] | undefined => {
  const d = data as AnnotationsRecorded['data'];
  if (!Array.isArray(d?.annotations)) return undefined;
  const kept = d.annotations.filter((a) => !(typeof a?.targetId === 'string' && isOnErased(a, targets)));
  return kept.length === d.annotations.length ? undefined : { ...d, annotations: kept };
};
