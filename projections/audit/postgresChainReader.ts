import type { CommonQueryMethods } from 'slonik';
import type { ChainReader } from '../../domain/audit/verifyChain.ts';
import { readChainEvents, typeAndStream } from '../../domain/eventstore/postgresChainEvents.ts';
import { positionOfEvent } from '../../domain/eventstore/postgresEventPosition.ts';
import { readCheckpoints, readSealHeads, sealOfEvent } from './sealStore.ts';
import { removalRecordAt } from '../../domain/eventstore/postgresRemovalRecord.ts';

/**
 * `loupe audit verify` on the Postgres/PGlite log and the seals beside it. Pages of the log are
 * bounded by their data's stored size too (64 MB): hashing reads all of it.
 */
export const postgresChainReader = (db: CommonQueryMethods, pageBytes = 64 * 1024 * 1024): ChainReader => ({
  events: (after, limit) => readChainEvents(db, after, limit, pageBytes),
  about: (event) => typeAndStream(db, event.position),
  seals: (after, limit) => readSealHeads(db, after, limit),
  sealOfEvent: (eventId) => sealOfEvent(db, eventId),
  positionOfEvent: (eventId) => positionOfEvent(db, eventId),
  checkpoints: () => readCheckpoints(db),
  removal: (seq) => removalRecordAt(db, seq),
});
