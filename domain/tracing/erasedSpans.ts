import { inFirstOrder } from '../base/inFirstOrder.ts';
import { genAiSessionId } from './openInferenceFromGenAi.ts';
import type { SpanRecord } from './events.ts';
import { storableName } from '../base/storableText.ts';
import type { ErasedSpan, SpansIngestedData } from './events.ts';

export type { ErasedSpan };

/** One entry per span of the event as first stored, in that order: a span, or what stays of a removed one. */
export type SpanSlot<S> = { readonly span: S; readonly erased?: undefined } | { readonly span?: undefined; readonly erased: ErasedSpan };

/** The removed spans an event's data records (checked: a crafted event's junk is left out). */
export const erasedSpansOf = (data: unknown): ErasedSpan[] => {
  const raw = (data as { erased?: unknown } | null | undefined)?.erased;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((e: unknown) => {
    const r = (typeof e === 'object' && e !== null ? e : {}) as Record<string, unknown>;
    if (typeof r.at !== 'number' || !Number.isSafeInteger(r.at) || r.at < 0 || typeof r.traceId !== 'string') return [];
    // The same rules as a stored span's ids (storable.ts), for an event crafted into the log.
    const sessionId = typeof r.sessionId === 'string' && r.sessionId.trim() !== '' ? storableName(r.sessionId) : null;
    return [{ at: r.at, traceId: storableName(r.traceId), sessionId }];
  });
};

/**
 * The event's spans and removed spans merged back into their first order. `spans` are the ones
 * still stored (in order), `erased` says where the removed ones were.
 */
export const spanSlots = <S>(spans: readonly S[], erasedSpans: readonly ErasedSpan[]): SpanSlot<S>[] =>
  inFirstOrder(spans, erasedSpans, (span) => ({ span }));

/**
 * The event's data without the spans `remove` picks: those spans become `ErasedSpan`s, resources
 * no remaining span uses become `{}` (indices stay), everything else is kept as stored. Undefined
 * when no span is picked (nothing to rewrite). Pure: the rewrite a removal runs inside the store.
 */
export const withoutSpans = (data: unknown, remove: (span: SpanRecord) => boolean): SpansIngestedData | undefined => {
  const d = data as SpansIngestedData;
  if (!Array.isArray(d?.spans)) return undefined;
  const slots = spanSlots(d.spans, erasedSpansOf(d));
  if (!slots.some((slot) => slot.span !== undefined && remove(slot.span))) return undefined;
  const spans: SpanRecord[] = [];
  const erased: ErasedSpan[] = [];
  slots.forEach((slot, at) => {
    if (slot.erased) erased.push(slot.erased);
    // The session the projector gave it (a GenAI conversation id counts), so a rebuild links its trace alike.
    else if (remove(slot.span))
      erased.push({ at, traceId: slot.span.traceId, sessionId: slot.span.sessionId ?? genAiSessionId(slot.span.attributes) });
    else spans.push(slot.span);
  });
  const used = new Set(spans.map((s) => s.resource));
  const resources = Array.isArray(d.resources) ? d.resources.map((r, i) => (used.has(i) ? r : {})) : [];
  return { ...d, resources, spans, erased };
};
