import type { CommonQueryMethods } from 'slonik';
import { sealParts } from '../../domain/audit/sealChain.ts';
import { createStoreSealInputs } from '../../domain/audit/storeSealInputs.ts';
import type { ChainReader } from '../../domain/audit/verifyChain.ts';
import type { EventStore, Position, StoredEvent } from '../../domain/eventstore/types.ts';
import { CONTENT_REMOVED, REMOVALS_STREAM, START } from '../../domain/eventstore/types.ts';
import { readCheckpoints, readSealHeads, sealOfEvent } from './sealStore.ts';

const PAGE_BYTES = 64 * 1024 * 1024;

/**
 * `loupe audit verify` on a log read through the port (EventStoreDB) with the seals in the SQL
 * database beside the read models. Finding where an event is now scans the log: it only runs on a
 * finding, to tell a reordering from a replacement or to name the event.
 */
export const storeChainReader = (db: CommonQueryMethods, store: EventStore): ChainReader => {
  const inputs = createStoreSealInputs(store);
  let removals: Promise<StoredEvent[]> | undefined;
  const find = async (eventId: string): Promise<StoredEvent | null> => {
    let after: Position = START;
    for (;;) {
      const page = await store.readAll(after, 1000, { maxBytes: PAGE_BYTES });
      if (page.length === 0) return null;
      const found = page.find((e) => e.id === eventId);
      if (found) return found;
      after = page.at(-1)!.position;
    }
  };
  return {
    events: async (after, limit) =>
      (await inputs.read(after, limit, PAGE_BYTES)).map((e) => {
        const { header, data } = sealParts(e);
        return { id: e.id, position: e.position, header, metadata: e.metadata, data, erasure: e.erasure };
      }),
    about: async (event) => {
      const found = await find(event.id);
      return found && { type: found.type, stream: found.stream };
    },
    seals: (after, limit) => readSealHeads(db, after, limit),
    sealOfEvent: (eventId) => sealOfEvent(db, eventId),
    positionOfEvent: async (eventId) => (await find(eventId))?.position ?? null,
    checkpoints: () => readCheckpoints(db),
    // The removal records are few: the stream is read once, on the first erased event met.
    removal: async (seq) => {
      removals ??= store.readStream(REMOVALS_STREAM);
      const record = (await removals).find((e) => e.position.seq === seq && e.type === CONTENT_REMOVED);
      const erased = (record?.data as { erased?: Array<{ id?: unknown }> } | undefined)?.erased;
      return Array.isArray(erased) ? { eventIds: new Set(erased.map((e) => String(e.id))) } : null;
    },
  };
};
