import {
  BACKWARDS,
  END,
  eventTypeFilter,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  KurrentDBClient,
  MaxAppendSizeExceededError,
  type ResolvedEvent,
  START as KURRENT_START,
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';
import { startScavenge } from './kurrentScavenge.ts';
import type { Backlog, EventMetadata, EventStore, ExpectedRevision, Position, StoredEvent } from './types.ts';
import { AppendTooLargeError, START, WrongExpectedRevisionError, comparePosition } from './types.ts';

/**
 * The event log in EventStoreDB / KurrentDB, through the official Node client
 * (`@kurrent/kurrentdb-client`: the maintained successor of `@eventstore/db-client`, same gRPC
 * protocol, and the one that still gets fixes; its reads go through a native Rust bridge that
 * speaks the same `Streams.Read` call).
 *
 * - Position {tx, seq} = EventStoreDB's (commit, prepare). `$all` is one total order written by one
 *   writer, so a reader never skips an event that commits late: gap-free by construction.
 * - Each Loupe event is one JSON event; its metadata is the audit metadata plus `loupe`
 *   ({schemaVersion, dataBytes}), stripped again when read. `dataBytes` (the JSON text's length) is
 *   what byte-bounded batches add up without re-serialising what was read.
 * - Only Loupe's events: system events (`$`-types: stream metadata, tombstones) are filtered out of
 *   `$all` on the server.
 * - `backlog` cannot count without reading every event's data, so it estimates from log positions
 *   (byte offsets in the log) and the mean record size seen so far; 0 is exact.
 */

/** What Loupe adds to an event's metadata on EventStoreDB (removed again on read). */
type Stored = EventMetadata & { readonly loupe?: { readonly schemaVersion?: number; readonly dataBytes?: number } };

const toPosition = (p: { commit: bigint; prepare: bigint }): Position => ({ tx: p.commit, seq: p.prepare });

const systemFree = () => excludeSystemEvents();
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export type KurrentEventStore = {
  readonly store: EventStore;
  /** The client in use (replaced after a read found no node: see unlessUnavailable). */
  readonly client: KurrentDBClient;
  /** The connection string without credentials. */
  readonly description: string;
  readonly close: () => Promise<void>;
};

/** Connection strings as the client takes them: `esdb://host:2113?tls=false`, `kurrentdb://…`, `…+discover://`. */
export const describeKurrentUrl = (url: string): string => {
  try {
    const u = new URL(url.replace(/^([a-z+]+):\/\//, 'http://'));
    const scheme = /^([a-z+]+):\/\//.exec(url)?.[1] ?? 'esdb';
    return `${scheme}://${u.host}${u.pathname === '/' ? '' : u.pathname}${u.search}`;
  } catch {
    return 'EventStoreDB (unparsable connection string)';
  }
};

export const createKurrentEventStore = (url: string): KurrentEventStore => {
  // The client warns once on stderr that `esdb://` is deprecated; both schemes mean the same.
  const connect = () => KurrentDBClient.connectionString(url.replace(/^esdb(\+discover)?:/, 'kurrentdb$1:'));
  let client = connect();
  let renewedAt = 0;
  /**
   * A client whose reads found no node is replaced by a new one. The reads' native bridge gives up
   * discovering a node that never answered (after its discovery attempts, ~1 s) and keeps failing
   * UNAVAILABLE even once the node is up; a new client connects. At most once a second.
   */
  const unlessUnavailable = (error: unknown): never => {
    if (error instanceof UnavailableError && Date.now() - renewedAt > 1000) {
      renewedAt = Date.now();
      const old = client;
      client = connect();
      old.dispose().catch(() => undefined);
    }
    throw error;
  };
  /** Mean bytes between consecutive events in `$all` (record size), learnt from reads. */
  let meanRecordBytes = 2048;
  const learn = (events: readonly StoredEvent[]) => {
    for (let i = 1; i < events.length; i++) {
      const gap = Number(events[i]!.position.tx - events[i - 1]!.position.tx);
      if (gap > 0) meanRecordBytes = 0.9 * meanRecordBytes + 0.1 * gap;
    }
  };

  type Read = { readonly event: StoredEvent; readonly bytes: number; readonly created: Date };
  const toStored = (resolved: ResolvedEvent): Read | null => {
    const e = resolved.event;
    if (!e?.position || e.type.startsWith('$')) return null;
    const { loupe, ...metadata } = (e.metadata ?? {}) as Stored;
    return {
      event: {
        id: e.id,
        stream: e.streamId,
        revision: Number(e.revision),
        position: toPosition(e.position),
        type: e.type,
        schemaVersion: loupe?.schemaVersion ?? 1,
        data: e.data,
        metadata: metadata as EventMetadata,
      },
      bytes: loupe?.dataBytes ?? 0,
      created: e.created,
    };
  };

  /** Reads `$all` forwards from `after` (exclusive), at most `limit` events and `maxBytes` of data (at least one). */
  const readForwards = async (after: Position, limit: number, maxBytes: number, types?: readonly string[]): Promise<Read[]> => {
    const atStart = comparePosition(after, START) === 0;
    const events: Read[] = [];
    let total = 0;
    // Reading from a position includes the event at it: one more, and that one is dropped.
    const reading = client.readAll({
      fromPosition: atStart ? KURRENT_START : { commit: after.tx, prepare: after.seq },
      direction: FORWARDS,
      maxCount: atStart ? limit : limit + 1,
      // Only the wanted types, chosen on the server (they never start with `$`).
      filter: types ? eventTypeFilter({ regex: `^(?:${types.map(escapeRegex).join('|')})$` }) : systemFree(),
    });
    try {
      for await (const resolved of reading) {
        const stored = toStored(resolved);
        if (!stored || comparePosition(stored.event.position, after) <= 0) continue;
        if (events.length > 0 && total + stored.bytes > maxBytes) break;
        events.push(stored);
        total += stored.bytes;
        if (events.length >= limit) break;
      }
    } catch (error) {
      unlessUnavailable(error);
    }
    learn(events.map((r) => r.event));
    return events;
  };

  /** The newest event in `$all` (system events excluded), or null. */
  const newest = async (): Promise<StoredEvent | null> => {
    try {
      for await (const resolved of client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1, filter: systemFree() })) {
        const stored = toStored(resolved);
        if (stored) return stored.event;
      }
    } catch (error) {
      unlessUnavailable(error);
    }
    return null;
  };

  const expectedState = (expected: ExpectedRevision) => (expected === 'any' || expected === 'no_stream' ? expected : BigInt(expected));

  const store: EventStore = {
    async appendToStream(stream, events, expected) {
      if (events.length === 0) throw new Error('appendToStream needs at least one event');
      const proposed = events.map((e) => {
        // Serialised here only to know its size (the client serialises it again for the wire).
        const dataBytes = Buffer.byteLength(JSON.stringify(e.data));
        return jsonEvent({
          id: e.id,
          type: e.type,
          data: e.data as Record<string, unknown>,
          metadata: { ...e.metadata, loupe: { schemaVersion: e.schemaVersion ?? 1, dataBytes } },
        });
      });
      try {
        const result = await client.appendToStream(stream, proposed, { streamState: expectedState(expected) });
        if (!result.position) throw new Error(`EventStoreDB acknowledged an append to ${stream} without a position`);
        return { revision: Number(result.nextExpectedRevision), position: toPosition(result.position) };
      } catch (error) {
        if (error instanceof MaxAppendSizeExceededError) throw new AppendTooLargeError(stream, error.maxAppendSize);
        if (error instanceof WrongExpectedVersionError) {
          const actual = typeof error.actualState === 'bigint' ? Number(error.actualState) : null;
          throw new WrongExpectedRevisionError(stream, expected, actual);
        }
        throw error;
      }
    },

    async readStream(stream) {
      const events: StoredEvent[] = [];
      try {
        for await (const resolved of client.readStream(stream, { fromRevision: KURRENT_START, direction: FORWARDS })) {
          const stored = toStored(resolved);
          if (stored) events.push(stored.event);
        }
      } catch (error) {
        if (error instanceof StreamNotFoundError) return [];
        unlessUnavailable(error);
      }
      return events;
    },

    readAll: async (after, limit, filter) =>
      (await readForwards(after, limit, filter?.maxBytes ?? Number.POSITIVE_INFINITY, filter?.types)).map((r) => r.event),

    async headPosition() {
      return (await newest())?.position ?? START;
    },

    async removeContent() {
      // Not yet (WAVE-NOTES "Removal from the log"); a removal fails loudly rather than pretend, and
      // the erasure reactor records the error and retries. EventStoreDB cannot edit an event: the
      // plan is to append each rewritten event's survivors (with its id, stream, revision, position
      // and original hash) to a side stream `$maxCount: 1`, hide the original and its earlier
      // siblings behind `$tb` on its stream (the siblings copied verbatim first), merge those copies
      // back into readAll/readStream at their positions, and scavenge in reclaimSpace. What blocks
      // it: ContentRemoval names events by id only, and EventStoreDB has no lookup by event id (a
      // scan of $all per removal); it needs each event's position (or stream) in the removal.
      throw new Error('removing content from the log is not implemented on EventStoreDB yet');
    },

    /** A scavenge: removes from the node's files what stream metadata and deletions hide. */
    async reclaimSpace() {
      try {
        await startScavenge(client);
      } catch (error) {
        unlessUnavailable(error);
      }
    },

    async backlog(after, { cap, through }): Promise<Backlog> {
      const [first] = await readForwards(after, 1, 0);
      if (!first || (through && comparePosition(first.event.position, through) > 0)) return { events: 0, oldestRecordedAt: null };
      const last = through ?? (await newest())?.position ?? first.event.position;
      const estimate = 1 + Math.round(Number(last.tx - first.event.position.tx) / meanRecordBytes);
      return { events: Math.min(cap, Math.max(1, estimate)), oldestRecordedAt: first.created };
    },
  };

  return {
    store,
    get client() {
      return client;
    },
    description: describeKurrentUrl(url),
    close: () => client.dispose(),
  };
};
