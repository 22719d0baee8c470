import type { Position } from '../eventstore/types.ts';
import { START } from '../eventstore/types.ts';

const PAGE = 5_000;

/**
 * Reads pages ahead: the next page is on its way while this one is checked. A short page is not
 * the end (pages may be cut by bytes too): only an empty one is.
 */
export const pageCursor = <T extends { position: Position }>(read: (after: Position, limit: number) => Promise<T[]>) => {
  let page: T[] = [];
  let index = 0;
  let done = false;
  let next: Promise<T[]> | null = read(START, PAGE);
  const fill = async () => {
    while (index >= page.length && !done) {
      page = await next!;
      index = 0;
      done = page.length === 0;
      next = done ? null : read(page.at(-1)!.position, PAGE);
    }
  };
  return {
    /**
     * The current item when the page in hand has it, else undefined (then `peek` says whether the
     * log goes on): verify looks at two items per event, and an await is a trip through the
     * microtask queue each.
     */
    inHand(): T | undefined {
      return page[index];
    },
    async peek(): Promise<T | undefined> {
      await fill();
      return page[index];
    },
    take() {
      index++;
    },
    /** Waits for the page read ahead (its connection may be a transaction about to end); its result is dropped. */
    async close(): Promise<void> {
      done = true;
      await next?.catch(() => undefined);
      next = null;
    },
  };
};
