import { createHash } from 'node:crypto';
import type { EventStore } from '../eventstore/types.ts';
import type { SealInputSource } from './sealInputSource.ts';
import { canonicalMetadata } from './sealInput.ts';

/**
 * The seal inputs of a log read through the event-store port (EventStoreDB): the data is hashed
 * here, as the JSON text the adapter stored (`JSON.stringify` of the data, which is what it sends),
 * so unlike the Postgres source the data does travel to the sealer; pages are bounded by bytes.
 * Such a log is never edited in place, so no event is marked erased.
 */
export const createStoreSealInputs = (store: EventStore): SealInputSource => ({
  async read(after, maxEvents, maxBytes) {
    const events = await store.readAll(after, maxEvents, { maxBytes });
    return events.map((e) => ({
      id: e.id,
      position: e.position,
      stream: e.stream,
      revision: e.revision,
      type: e.type,
      metadata: canonicalMetadata(e.metadata),
      dataSha256: createHash('sha256').update(JSON.stringify(e.data), 'utf8').digest(),
      erasure: null,
    }));
  },
});
