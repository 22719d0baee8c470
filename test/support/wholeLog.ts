import { type EventStore, START, type StoredEvent } from '../../domain/eventstore/types.ts';

/** Every event the store's `readAll` shows now, in global order (what `loupe events export` would print). */
export const wholeLog = async (store: EventStore): Promise<StoredEvent[]> => {
  const all: StoredEvent[] = [];
  for (let after = START; ; ) {
    const page = await store.readAll(after, 500);
    if (page.length === 0) return all;
    all.push(...page);
    after = page[page.length - 1]!.position;
  }
};
