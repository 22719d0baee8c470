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
  /** Set when a removal rewrote this event's data (see `removeContent`); absent for an untouched event. */
  readonly erased?: Erasure;
};

/**
 * How an event's content was removed: `by` is the position of the removal record (the last one,
 * if it was rewritten more than once) and `dataSha256` the hex SHA-256 of the ORIGINAL data as it
 * was first stored (its JSON text, UTF-8), so a hash chain over the log stays verifiable.
 */
export type Erasure = { readonly by: Position; readonly dataSha256: string };

/** The stream every removal record is appended to, and the record's type. */
export const REMOVALS_STREAM = 'removals';
export const CONTENT_REMOVED = 'ContentRemoved';

/**
 * The one exception to append-only. In ONE transaction (one atomic step of the store), the store
 * reads each of `eventIds` as stored now, asks `rewrite` what to keep, rewrites the data of those
 * that change, and appends `record` to `REMOVALS_STREAM` (type `CONTENT_REMOVED`, any revision)
 * with `erased: [{ id, stream, position }]` added to its data: the events it rewrote. A rewritten
 * event keeps its id, stream, revision, position, type, schema version and metadata; only its
 * data changes, and it carries `erased`. Readers see an event either whole or rewritten, never in
 * between, and positions never change, so a reader paging through `readAll` meanwhile neither
 * fails nor skips anything.
 */
export type ContentRemoval = {
  /**
   * The record: what kind (retention, erasure), which ids, the cut-off, the policy or actor, when
   * (its metadata) — never the removed content.
   */
  readonly record: NewEvent;
  readonly eventIds: readonly string[];
  /**
   * Pure. The data to keep for `event` (the survivors), `null` for an empty stub (`{}`), or
   * `undefined` when nothing of it is to be removed (it is left alone and not listed). Called
   * inside the removal, on the data as stored then (a concurrent removal may have rewritten it).
   */
  readonly rewrite: (event: StoredEvent) => unknown;
};

export type RemovalResult = {
  /** Position of the removal record. */
  readonly position: Position;
  /** The events rewritten (as listed in the record). */
  readonly erased: readonly { readonly id: string; readonly stream: string; readonly position: Position }[];
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
  /**
   * Removes content from the log (see `ContentRemoval`): the only way an event changes. Resolves
   * with the record's position and what was rewritten, or null when nothing needed rewriting (no
   * record is appended: removing what is already gone is a no-op, so a retried removal is safe).
   */
  removeContent(removal: ContentRemoval): Promise<RemovalResult | null>;
  /**
   * Makes removed content unreadable where the store keeps it on disk (Postgres: VACUUM of the
   * log table, whose old row versions still hold it; EventStoreDB: a scavenge). Slow and
   * infrequent: call after removals, not after every append.
   */
  reclaimSpace(): Promise<void>;
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
