/**
 * An event's items still stored (in order) and the stubs of removed ones (`at`: each one's index
 * among all the items as first stored) merged back into that first order. A removal from the log
 * keeps such stubs so a rebuild meets every item the projector met live and hands out the same
 * row ids (tracing/erasedSpans.ts, annotations/erasedAnnotations.ts). `slot` wraps a kept item;
 * a stub whose index lies past the end (a crafted event) comes after the others, in order.
 */
export const inFirstOrder = <T, E extends { readonly at: number }, S>(
  kept: readonly T[],
  erasedItems: readonly E[],
  slot: (item: T) => S,
): (S | { readonly erased: E })[] => {
  const erased = [...erasedItems].sort((a, b) => a.at - b.at);
  if (erased.length === 0) return kept.map(slot);
  const slots: (S | { readonly erased: E })[] = [];
  let k = 0;
  let e = 0;
  while (k < kept.length || e < erased.length) {
    if (e < erased.length && (erased[e]!.at <= slots.length || k >= kept.length)) slots.push({ erased: erased[e++]! });
    else slots.push(slot(kept[k++]!));
  }
  return slots;
};
