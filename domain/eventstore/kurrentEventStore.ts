import {
  BACKWARDS,
  END,
  eventTypeFilter,
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
import { createHash } from 'node:crypto';
import { startScavenge } from './kurrentScavenge.ts';
import type { Backlog, ContentRemoval, EventMetadata, EventStore, ExpectedRevision, Position, StoredEvent } from './types.ts';
import {
  AppendTooLargeError,
  comparePosition,
  positionFromString,
  positionToString,
  REMOVALS_STREAM,
  START,
  WrongExpectedRevisionError,
} from './types.ts';

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
 *   (byte offsets in the log) at a fixed 1 KiB per event; 0 is exact.
 */

/** What Loupe adds to an event's metadata on EventStoreDB (removed again on read). */
type Stored = EventMetadata & { readonly loupe?: { readonly schemaVersion?: number; readonly dataBytes?: number } };

const toPosition = (p: { commit: bigint; prepare: bigint }): Position => ({ tx: p.commit, seq: p.prepare });

/** A copy of a rewritten event as stored in its side stream (positions as "tx:seq"). */
type CopyData = {
  readonly event: Omit<StoredEvent, 'position' | 'erased'> & {
    readonly position: string;
    readonly erased?: { readonly by: string; readonly dataSha256: string };
  };
  readonly bytes: number;
};

const fromCopy = (copy: CopyData, created: Date) => {
  const { erased, position, ...event } = copy.event;
  return {
    event: {
      ...event,
      position: positionFromString(position),
      ...(erased ? { erased: { by: positionFromString(erased.by), dataSha256: erased.dataSha256 } } : {}),
    } as StoredEvent,
    bytes: copy.bytes,
    created,
  };
};

/**
 * The type of the copies removeContent keeps of rewritten events (in side streams): never shown as
 * events of their own, merged back at the original's position instead.
 */
export const COPY_TYPE = 'LoupeEventCopied';
/**
 * The record size a backlog's event count is estimated with (log bytes / this). Fixed, not learnt:
 * the lag gate divides one estimate by a rate made of others, which then agree; a learnt mean
 * that moved between two samples (a run of large span batches) made the drain time absurd.
 */
const ESTIMATED_RECORD_BYTES = 1024;

/** Loupe's events only: no `$` system events, no copies. */
const loupeOnly = () => eventTypeFilter({ regex: `^(?!\\$)(?!${COPY_TYPE}$).*` });
const copiesOnly = () => eventTypeFilter({ regex: `^${COPY_TYPE}$` });
const copyStream = (id: string) => `loupe-copy-${id}`;
const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
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

  /**
   * Copies of rewritten events (removeContent), by id: the event as readers see it now, at its
   * original position. Learnt from the copies in `$all` (only those: a server-side type filter),
   * incrementally, before each read is merged, so a copy written by another process is seen too.
   */
  const copies = new Map<string, Read>();
  let copiesAfter: Position = START;
  const refreshCopies = async () => {
    // The log's end now: scanned up to it, the next refresh starts there, so a refresh only ever
    // looks at what was appended since (a copy appended meanwhile lies beyond it).
    let end: Position | null = null;
    try {
      for await (const resolved of client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1 })) {
        if (resolved.event?.position) end = toPosition(resolved.event.position);
      }
    } catch (error) {
      unlessUnavailable(error);
    }
    for (;;) {
      const atStart = comparePosition(copiesAfter, START) === 0;
      let seen = 0;
      try {
        for await (const resolved of client.readAll({
          fromPosition: atStart ? KURRENT_START : { commit: copiesAfter.tx, prepare: copiesAfter.seq },
          direction: FORWARDS,
          maxCount: 500,
          filter: copiesOnly(),
        })) {
          const e = resolved.event;
          if (!e?.position || e.type !== COPY_TYPE) continue;
          const at = toPosition(e.position);
          if (comparePosition(at, copiesAfter) <= 0) continue;
          copiesAfter = at;
          seen++;
          const copy = e.data as unknown as CopyData;
          copies.set(copy.event.id, fromCopy(copy, e.created));
        }
      } catch (error) {
        unlessUnavailable(error);
      }
      if (seen === 0) break;
    }
    if (end && comparePosition(end, copiesAfter) > 0) copiesAfter = end;
  };

  /** Reads `$all` forwards from `after` (exclusive), at most `limit` events and `maxBytes` of data (at least one). */
  const readForwards = async (after: Position, limit: number, maxBytes: number, types?: readonly string[]): Promise<Read[]> => {
    const atStart = comparePosition(after, START) === 0;
    const events: Read[] = [];
    let total = 0;
    /** Where this read stopped short of the log's end (copies beyond it belong to a later page). */
    let horizon: Position | null = null;
    // Reading from a position includes the event at it: one more, and that one is dropped.
    const reading = client.readAll({
      fromPosition: atStart ? KURRENT_START : { commit: after.tx, prepare: after.seq },
      direction: FORWARDS,
      maxCount: atStart ? limit : limit + 1,
      // Only the wanted types, chosen on the server (they never start with `$`).
      filter: types ? eventTypeFilter({ regex: `^(?:${types.map(escapeRegex).join('|')})$` }) : loupeOnly(),
    });
    try {
      for await (const resolved of reading) {
        const stored = toStored(resolved);
        if (!stored || comparePosition(stored.event.position, after) <= 0) continue;
        if (events.length > 0 && total + stored.bytes > maxBytes) {
          horizon = events.at(-1)!.event.position;
          break;
        }
        events.push(stored);
        total += stored.bytes;
        if (events.length >= limit) {
          horizon = stored.event.position;
          break;
        }
      }
    } catch (error) {
      unlessUnavailable(error);
    }
    // After the read: a copy is written before its original can be scavenged, so an original this
    // read no longer found has its copy known by now.
    await refreshCopies();
    if (copies.size === 0) return events;
    const ids = new Set(events.map((r) => r.event.id));
    const merged = events.map((r) => copies.get(r.event.id) ?? r);
    for (const copy of copies.values()) {
      const at = copy.event.position;
      if (ids.has(copy.event.id) || comparePosition(at, after) <= 0 || (horizon && comparePosition(at, horizon) > 0)) continue;
      if (types && !types.includes(copy.event.type)) continue;
      merged.push(copy);
    }
    merged.sort((a, b) => comparePosition(a.event.position, b.event.position));
    const page: Read[] = [];
    let bytes = 0;
    for (const r of merged) {
      if (page.length >= limit || (page.length > 0 && bytes + r.bytes > maxBytes)) break;
      page.push(r);
      bytes += r.bytes;
    }
    return page;
  };

  /** The newest event in `$all` (system events excluded), or null. */
  const newest = async (): Promise<StoredEvent | null> => {
    try {
      for await (const resolved of client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1, filter: loupeOnly() })) {
        const stored = toStored(resolved);
        if (stored) return stored.event;
      }
    } catch (error) {
      unlessUnavailable(error);
    }
    return null;
  };

  const writeCopy = async (event: StoredEvent, first: boolean) => {
    const { erased, position, ...rest } = event;
    const data: CopyData = {
      event: {
        ...rest,
        position: positionToString(position),
        ...(erased ? { erased: { by: positionToString(erased.by), dataSha256: erased.dataSha256 } } : {}),
      },
      bytes: Buffer.byteLength(JSON.stringify(event.data)),
    };
    await client.appendToStream(copyStream(event.id), jsonEvent({ type: COPY_TYPE, data: data as unknown as Record<string, unknown> }));
    if (first) await client.setStreamMetadata(copyStream(event.id), { maxCount: 1 });
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
        if (!(error instanceof StreamNotFoundError)) unlessUnavailable(error);
      }
      await refreshCopies();
      // Rewritten events (and the earlier ones of their stream) are hidden behind `$tb` and read
      // from their copies.
      const ids = new Set(events.map((e) => e.id));
      const merged = events.map((e) => copies.get(e.id)?.event ?? e);
      for (const copy of copies.values()) if (copy.event.stream === stream && !ids.has(copy.event.id)) merged.push(copy.event);
      return merged.sort((a, b) => a.revision - b.revision);
    },

    readAll: async (after, limit, filter) =>
      (await readForwards(after, limit, filter?.maxBytes ?? Number.POSITIVE_INFINITY, filter?.types)).map((r) => r.event),

    async headPosition() {
      const head = (await newest())?.position ?? START;
      await refreshCopies();
      let last = head;
      for (const copy of copies.values()) if (comparePosition(copy.event.position, last) > 0) last = copy.event.position;
      return last;
    },

    /**
     * EventStoreDB cannot edit an event, so a removal: (1) appends the record to `removals`;
     * (2) writes each rewritten event — its id, stream, revision, position, type, metadata, the
     * survivors as data, `erased` — as a copy to a side stream of its own (`$maxCount: 1`: only the
     * newest copy stays), and copies verbatim the earlier events of its stream not copied yet;
     * (3) hides them all behind the stream's `$tb`. Readers of this adapter see the copies at the
     * original positions from step 2 on; reclaimSpace (a scavenge) then removes the originals and
     * superseded copies from the node's files. Not one atomic step as on Postgres: a process that
     * dies between (1) and (2) leaves a record naming events still whole; a retried removal
     * rewrites them under a second record. Finding an event by id scans the log (EventStoreDB has
     * no lookup by id) unless a copy of it exists already.
     */
    async removeContent(removal: ContentRemoval) {
      await refreshCopies();
      const wanted = new Set(removal.eventIds.filter((id) => !copies.has(id)));
      const found = new Map<string, StoredEvent>();
      for (let after: Position = START; wanted.size > found.size; ) {
        const page = await readForwards(after, 1000, 64 * 1024 * 1024);
        if (page.length === 0) break;
        for (const r of page) if (wanted.has(r.event.id)) found.set(r.event.id, r.event);
        after = page.at(-1)!.event.position;
      }
      const changes: Array<{ event: StoredEvent; kept: unknown }> = [];
      for (const id of removal.eventIds) {
        const event = copies.get(id)?.event ?? found.get(id);
        if (!event) continue;
        const kept = removal.rewrite(event);
        if (kept !== undefined) changes.push({ event, kept: kept === null ? {} : kept });
      }
      if (changes.length === 0) return null;
      const erased = changes.map(({ event }) => ({ id: event.id, stream: event.stream, position: event.position }));
      const record = {
        ...removal.record,
        data: { ...(removal.record.data as object), erased: erased.map((e) => ({ ...e, position: positionToString(e.position) })) },
      };
      const { position: by } = await store.appendToStream(REMOVALS_STREAM, [record], 'any');
      const byStream = Map.groupBy(changes, (c) => c.event.stream);
      for (const [stream, rewritten] of byStream) {
        const last = Math.max(...rewritten.map((c) => c.event.revision));
        const changed = new Map(rewritten.map((c) => [c.event.id, c]));
        for (const event of await store.readStream(stream)) {
          if (event.revision > last) continue;
          const change = changed.get(event.id);
          if (!change && copies.has(event.id)) continue;
          const copy: StoredEvent = change
            ? { ...event, data: change.kept, erased: { by, dataSha256: event.erased?.dataSha256 ?? sha256Hex(JSON.stringify(event.data)) } }
            : event;
          await writeCopy(copy, !copies.has(event.id));
        }
        const { metadata } = await client.getStreamMetadata(stream);
        const before = Number(metadata?.truncateBefore ?? 0);
        await client.setStreamMetadata(stream, { ...metadata, truncateBefore: Math.max(before, last + 1) });
      }
      await refreshCopies();
      return { position: by, erased };
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
      const estimate = 1 + Math.round(Number(last.tx - first.event.position.tx) / ESTIMATED_RECORD_BYTES);
      // The client reports `created` in whole seconds: an age up to a second too old would close
      // the ingest gate early. The command's own time (ms) is later than that for an event written
      // now; a copied event keeps its old command time, and then `created` (the copy's) is later.
      const commanded = Date.parse(first.event.metadata.time);
      const recorded = Number.isNaN(commanded) ? first.created.getTime() : Math.max(commanded, first.created.getTime());
      return { events: Math.min(cap, Math.max(1, estimate)), oldestRecordedAt: new Date(recorded) };
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
