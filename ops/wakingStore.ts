import type { EventStore } from '../domain/eventstore/types.ts';

/**
 * The store this process appends through, calling `wake` after every append and removal (a removal
 * appends its ContentRemoved): the read model runner and the reactor lanes sleep longer while the
 * log is quiet (processor/processorLoop.ts, `maxIdleMs`) and still see this process's events at
 * once. `wake` is read at each call, so the loops may be wired in after the store is made.
 */
export const wakingStore = (store: EventStore, wake: () => void): EventStore => ({
  ...store,
  appendToStream: async (stream, events, expected) => {
    const appended = await store.appendToStream(stream, events, expected);
    wake();
    return appended;
  },
  removeContent: async (removal) => {
    const removed = await store.removeContent(removal);
    wake();
    return removed;
  },
});
