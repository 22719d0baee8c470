/**
 * The event-store port. Every adapter (Postgres/PGlite, EventStoreDB) implements it and
 * passes the one contract suite in test/domain/eventstore/.
 */

/**
 * A point in the global order. For Postgres it is (transaction id, global position): ordering by
 * the pair is what lets readers never skip an event whose transaction commits late. For
 * EventStoreDB it is (commit, prepare). Compare with `comparePosition`, never field by field.
 */
export type Position = { readonly tx: bigint; readonly seq: bigint };

export const START: Position = { tx: 0n, seq: 0n };

export const comparePosition = (a: Position, b: Position): number =>
  a.tx < b.tx ? -1 : a.tx > b.tx ? 1 : a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0;

export const positionToString = (p: Position): string => `${p.tx}:${p.seq}`;

export const positionFromString = (s: string): Position => {
  const m = /^(\d+):(\d+)$/.exec(s);
  if (!m) throw new Error(`invalid position "${s}", expected "<tx>:<seq>"`);
  return { tx: BigInt(m[1]!), seq: BigInt(m[2]!) };
};

/** Who did it, on which request, when, and which command caused it: the audit trail. */
export type EventMetadata = {
  readonly actor: string;
  readonly requestId: string | null;
  readonly time: string;
  readonly causation: string | null;
};

export type NewEvent = {
  /** The event's id (a UUID); a new one unless given (`loupe events copy` keeps the source's). */
  readonly id?: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
  readonly schemaVersion?: number;
};

export type StoredEvent = {
  readonly id: string;
  readonly stream: string;
  readonly revision: number;
  readonly position: Position;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: unknown;
  readonly metadata: EventMetadata;
};

/** `no_stream`: the stream must not exist; a number: its last revision must be exactly that. */
/** Narrows `readAll` to some event types (EventStoreDB: a server-side event type filter). */
export type ReadFilter = { readonly types?: readonly string[]; readonly maxBytes?: number };

export type ExpectedRevision = 'no_stream' | 'any' | number;

export type AppendResult = {
  /** Revision of the last appended event. */
  readonly revision: number;
  /** Global position of the last appended event. */
  readonly position: Position;
};

/** What a reader at some position has not seen yet. */
export type Backlog = {
  /**
   * Events after the position (through `through` when given), counted up to the cap. An adapter
   * that cannot count without reading every event (EventStoreDB) estimates it from log positions;
   * it is exact when 0.
   */
  readonly events: number;
  /** When the first of them was recorded; null when there are none. */
  readonly oldestRecordedAt: Date | null;
};

export interface EventStore {
  appendToStream(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Events of one stream in revision order; [] for a stream that does not exist. */
  readStream(stream: string): Promise<StoredEvent[]>;
  /**
   * Up to `limit` events strictly after `after` in the one global order (all committed before them
   * included). With `filter.types`, only events of those types (a reactor that reads deletions
   * does not read every span batch); the order and the gap-free guarantee are the same. With
   * `filter.maxBytes`, fewer when their data (JSON text as stored) would exceed it together, but
   * always at least one.
   */
  readAll(after: Position, limit: number, filter?: ReadFilter): Promise<StoredEvent[]>;
  /** How far the log runs ahead of `after` (lag, status, progress): never reads the events' data. */
  backlog(after: Position, options: { readonly cap: number; readonly through?: Position }): Promise<Backlog>;
  /**
   * The position of the newest committed event (START when the log is empty). A reader may not
   * see it yet (an older transaction still running holds the horizon back), but will: waiting
   * for it means "everything committed so far".
   */
  headPosition(): Promise<Position>;
}

export class WrongExpectedRevisionError extends Error {
  readonly code = 'wrong_expected_revision';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | null,
  ) {
    super(`stream "${stream}": expected revision ${String(expected)}, actual ${actual === null ? 'no stream' : actual}`);
  }
}

/** The log refused an append for its size (EventStoreDB's MaxAppendSize): nothing was written. */
export class AppendTooLargeError extends Error {
  readonly code = 'append_too_large';
  constructor(
    readonly stream: string,
    readonly maxAppendSize: number,
  ) {
    super(`the event log refused the append to "${stream}": larger than its maximum append size (${maxAppendSize} bytes)`);
  }
}
