import { createHash } from 'node:crypto';
import type { EventStore, Position } from '../eventstore/types.ts';
import type { SealInputSource } from './sealInputSource.ts';
import { canonicalMetadata } from './sealInput.ts';

/**
 * The seal inputs of a log read through the event-store port (EventStoreDB): the data is hashed
 * here, as the JSON text the adapter stored (`JSON.stringify` of the data, which is what it sends),
 * so unlike the Postgres source the data does travel to the sealer; pages are bounded by bytes.
 * An event a removal rewrote is read from its copy, with the hash of what it held.
 */
export const createStoreSealInputs = (store: EventStore): SealInputSource => {
  const readWithData = async (after: Position, maxEvents: number, maxBytes: number) => {
    const events = await store.readAll(after, maxEvents, { maxBytes });
    return events.map((e) => {
      const dataText = JSON.stringify(e.data);
      return {
        id: e.id,
        position: e.position,
        stream: e.stream,
        revision: e.revision,
        type: e.type,
        metadata: canonicalMetadata(e.metadata),
        // An erased event is sealed over the data it held (its hash, kept with the copy).
        dataSha256: e.erased ? Buffer.from(e.erased.dataSha256, 'hex') : createHash('sha256').update(dataText, 'utf8').digest(),
        erasure: e.erased ? { by: e.erased.by.seq } : null,
        dataText,
      };
    });
  };
  return { read: readWithData, readWithData };
};
