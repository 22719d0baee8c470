import { createHash } from 'node:crypto';
import type { EventStore } from '../eventstore/types.ts';
import type { SealInputSource } from './sealInputSource.ts';
import { canonicalMetadata } from './sealInput.ts';

/**
 * The seal inputs of a log read through the event-store port (EventStoreDB): the data is hashed
 * here, as the JSON text the adapter stored (`JSON.stringify` of the data, which is what it sends),
 * so unlike the Postgres source the data does travel to the sealer; pages are bounded by bytes.
 * An event a removal rewrote is read from its copy, with the hash of what it held.
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
      // An erased event is sealed over the data it held (its hash, kept with the copy).
      dataSha256: e.erased ? Buffer.from(e.erased.dataSha256, 'hex') : createHash('sha256').update(JSON.stringify(e.data), 'utf8').digest(),
      erasure: e.erased ? { by: e.erased.by.seq } : null,
    }));
  },
});
