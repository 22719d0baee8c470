import type { Position } from '../eventstore/types.ts';
import type { SealParts } from './sealChain.ts';

/** One stored seal: the position and event it covers, what it covered (the parts) and the seal. */
export type SealRecord = SealParts & {
  readonly position: Position;
  /** 1 for the first event sealed, then +1 per event: a gap means seals were removed. */
  readonly ordinal: bigint;
  readonly eventId: string;
  readonly seal: Buffer;
};

/**
 * A seal as verify walks it: without the three part hashes, which only say *what* changed once a
 * seal does not match (read then by event id). A quarter of the bytes per row to read and decode.
 */
export type SealHead = Omit<SealRecord, keyof SealParts>;

/** The sealed head as recorded now and then, with the id of the key the chain is sealed with. */
export type Checkpoint = {
  readonly position: Position;
  readonly ordinal: bigint;
  readonly seal: Buffer;
  readonly keyId: string;
  /** ISO 8601. */
  readonly recordedAt: string;
};
