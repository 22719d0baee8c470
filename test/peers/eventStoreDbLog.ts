import { closeSync, existsSync, fdatasyncSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';

/**
 * The stand-in's log (test/peers/eventStoreDb.ts serves it over EventStoreDB's gRPC API): one
 * ordered sequence of records, each at a log position, with EventStoreDB's stream rules (expected
 * revisions, metadata streams `$$<stream>` with `$maxAge`/`$maxCount`/`$tb`, soft deletes,
 * tombstones, scavenging). Positions are byte offsets in the log as EventStoreDB's are (commit =
 * prepare for every record: the stand-in has no explicit multi-record transactions), so they are
 * sparse and never reused; a scavenge removes records but keeps every survivor's position.
 *
 * Durable when given a file: every append is one JSON line written and fdatasync'ed before it is
 * acknowledged; a scavenge rewrites the file (temporary file + rename).
 */

export const TOMBSTONE_REVISION = (1n << 63n) - 1n;
export const TOMBSTONE_TYPE = '$streamDeleted';
export const METADATA_TYPE = '$metadata';
/** .NET ticks (100 ns) since the Unix epoch: how EventStoreDB's gRPC API sends `created`. */
export const ticksNow = (): bigint => BigInt(Date.now()) * 10_000n;

export type LogRecord = {
  readonly position: bigint;
  readonly stream: string;
  readonly revision: bigint;
  readonly id: string;
  readonly type: string;
  readonly contentType: string;
  readonly created: bigint;
  readonly metadata: Buffer;
  readonly data: Buffer;
};

export type Proposed = Omit<LogRecord, 'position' | 'stream' | 'revision' | 'created'>;

/** `any`, `no_stream`, `stream_exists` or an exact revision, as AppendReq.Options says. */
export type Expected = 'any' | 'no_stream' | 'stream_exists' | bigint;

export type StreamMetadata = { readonly maxAge?: number; readonly maxCount?: number; readonly truncateBefore?: bigint };

type StreamState = {
  readonly records: LogRecord[];
  /** Revision of the last record ever written (survives scavenging and soft deletion). */
  last: bigint;
  tombstoned: boolean;
};

export class WrongExpected extends Error {
  constructor(
    readonly stream: string,
    readonly expected: Expected,
    readonly current: bigint | null,
  ) {
    super(`wrong expected version for ${stream}`);
  }
}
export class StreamDeleted extends Error {
  constructor(readonly stream: string) {
    super(`Event stream '${stream}' is deleted.`);
  }
}
export class AppendTooLarge extends Error {
  constructor(readonly maxAppendSize: number) {
    super(`Maximum Append Size of ${maxAppendSize} Exceeded.`);
  }
}

const recordBytes = (r: Omit<LogRecord, 'position'>) =>
  64 + Buffer.byteLength(r.stream) + Buffer.byteLength(r.type) + r.data.length + r.metadata.length;

const toLine = (r: LogRecord) =>
  `${JSON.stringify({
    p: r.position.toString(),
    s: r.stream,
    r: r.revision.toString(),
    id: r.id,
    t: r.type,
    c: r.contentType,
    at: r.created.toString(),
    m: r.metadata.toString('base64'),
    d: r.data.toString('base64'),
  })}\n`;

const fromLine = (line: string): LogRecord | { next: bigint } => {
  const o = JSON.parse(line);
  if (o.next !== undefined) return { next: BigInt(o.next) };
  return {
    position: BigInt(o.p),
    stream: o.s,
    revision: BigInt(o.r),
    id: o.id,
    type: o.t,
    contentType: o.c,
    created: BigInt(o.at),
    metadata: Buffer.from(o.m, 'base64'),
    data: Buffer.from(o.d, 'base64'),
  };
};

export const isMetadataStream = (stream: string) => stream.startsWith('$$');

export const createLog = (options: { readonly file?: string; readonly maxAppendSize: number; readonly now?: () => bigint }) => {
  const now = options.now ?? ticksNow;
  const all: LogRecord[] = [];
  const streams = new Map<string, StreamState>();
  /** EventStoreDB's log starts after its own epoch records: the first user record is not at 0. */
  let next = 4096n;
  const listeners = new Set<() => void>();

  const stateOf = (stream: string): StreamState => {
    let s = streams.get(stream);
    if (!s) {
      s = { records: [], last: -1n, tombstoned: false };
      streams.set(stream, s);
    }
    return s;
  };
  const index = (r: LogRecord) => {
    all.push(r);
    const s = stateOf(r.stream);
    s.records.push(r);
    if (r.type === TOMBSTONE_TYPE && r.revision === TOMBSTONE_REVISION) s.tombstoned = true;
    else s.last = r.revision;
  };

  let fd: number | null = null;
  if (options.file) {
    if (existsSync(options.file)) {
      for (const line of readFileSync(options.file, 'utf8').split('\n')) {
        if (!line) continue;
        const parsed = fromLine(line);
        if ('next' in parsed) {
          if (parsed.next > next) next = parsed.next;
          continue;
        }
        index(parsed);
        const end = parsed.position + BigInt(recordBytes(parsed));
        if (end > next) next = end;
      }
    }
    fd = openSync(options.file, 'a');
  }

  const persist = (records: readonly LogRecord[]) => {
    if (fd === null) return;
    writeSync(fd, records.map(toLine).join(''));
    fdatasyncSync(fd);
  };

  const metadataOf = (stream: string): StreamMetadata => {
    const meta = streams.get(`$$${stream}`)?.records.at(-1);
    if (!meta) return {};
    try {
      const o = JSON.parse(meta.data.toString('utf8'));
      return {
        maxAge: typeof o.$maxAge === 'number' ? o.$maxAge : undefined,
        maxCount: typeof o.$maxCount === 'number' ? o.$maxCount : undefined,
        truncateBefore: typeof o.$tb === 'number' || typeof o.$tb === 'string' ? BigInt(o.$tb) : undefined,
      };
    } catch {
      return {};
    }
  };

  /** Would a stream read show this record? ($tb, $maxCount, $maxAge; the metadata stream keeps its last.) */
  const visible = (stream: string) => {
    if (isMetadataStream(stream)) {
      const last = streams.get(stream)?.records.at(-1);
      return (r: LogRecord) => r === last;
    }
    const meta = metadataOf(stream);
    const s = streams.get(stream);
    const last = s?.last ?? -1n;
    const oldestAt = meta.maxAge === undefined ? null : now() - BigInt(meta.maxAge) * 10_000_000n;
    return (r: LogRecord) =>
      r.type === TOMBSTONE_TYPE ||
      ((meta.truncateBefore === undefined || r.revision >= meta.truncateBefore) &&
        (meta.maxCount === undefined || r.revision > last - BigInt(meta.maxCount)) &&
        (oldestAt === null || r.created >= oldestAt));
  };

  const current = (s: StreamState | undefined): bigint | null => {
    if (!s || s.last < 0n) return null;
    return s.last;
  };

  return {
    maxAppendSize: options.maxAppendSize,
    records: (): readonly LogRecord[] => all,
    onAppend(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    isTombstoned: (stream: string) => streams.get(stream)?.tombstoned ?? false,
    /** Soft-deleted: every record hidden by `$tb` at the last revision + 1 (what DeleteStream writes). */
    isSoftDeleted(stream: string) {
      const s = streams.get(stream);
      const tb = metadataOf(stream).truncateBefore;
      return !!s && s.last >= 0n && tb !== undefined && tb > s.last;
    },
    metadataOf,
    currentRevision: (stream: string) => current(streams.get(stream)),
    streamExists: (stream: string) => streams.has(stream) && (streams.get(stream)!.records.length > 0 || streams.get(stream)!.last >= 0n),

    /** Appends atomically after checking the expected revision; returns the records written. */
    append(stream: string, proposed: readonly Proposed[], expected: Expected): { records: LogRecord[]; current: bigint | null } {
      const s = streams.get(stream);
      if (s?.tombstoned) throw new StreamDeleted(stream);
      const size = proposed.reduce((n, p) => n + p.data.length + p.metadata.length, 0);
      if (size > options.maxAppendSize) throw new AppendTooLarge(options.maxAppendSize);
      const revision = current(s);
      const softDeleted = !isMetadataStream(stream) && this.isSoftDeleted(stream);
      const ok =
        expected === 'any' ||
        (expected === 'no_stream' && (revision === null || softDeleted)) ||
        (expected === 'stream_exists' && revision !== null && !softDeleted) ||
        (typeof expected === 'bigint' && expected === revision);
      // Idempotent retry, as EventStoreDB: the same event ids already written in this stream, in
      // the same order, succeed again without being written twice (a client retrying after a lost
      // acknowledgement).
      const already = proposed.length > 0 && s ? s.records.findIndex((r) => r.id === proposed[0]!.id) : -1;
      if (already >= 0 && proposed.every((p, i) => s!.records[already + i]?.id === p.id)) {
        const records = s!.records.slice(already, already + proposed.length);
        return { records, current: records.at(-1)!.revision };
      }
      if (!ok) throw new WrongExpected(stream, expected, revision);
      if (proposed.length === 0) return { records: [], current: revision };
      let rev = revision === null ? 0n : revision + 1n;
      if (proposed.length === 1 && proposed[0]!.type === TOMBSTONE_TYPE) rev = TOMBSTONE_REVISION;
      const written: LogRecord[] = [];
      for (const p of proposed) {
        const partial = { ...p, stream, revision: rev++, created: now() };
        const record: LogRecord = { position: next, ...partial };
        next += BigInt(recordBytes(partial));
        written.push(record);
      }
      persist(written);
      for (const r of written) index(r);
      for (const l of listeners) l();
      return { records: written, current: written.at(-1)!.revision };
    },

    /** A stream's records a read shows, in revision order. `null`: no such stream (or soft-deleted). */
    readStream(stream: string): LogRecord[] | null {
      const s = streams.get(stream);
      if (s?.tombstoned) throw new StreamDeleted(stream);
      if (!s || s.last < 0n) return null;
      if (!isMetadataStream(stream) && this.isSoftDeleted(stream)) return null;
      return s.records.filter(visible(stream));
    },

    /** Index of the first record at or after `position`. */
    indexAt(position: bigint): number {
      let lo = 0;
      let hi = all.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (all[mid]!.position < position) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    },
    head: (): bigint => all.at(-1)?.position ?? 0n,

    /**
     * Removes what a stream read can no longer show: records before `$tb`, beyond `$maxCount`,
     * older than `$maxAge`, of soft-deleted and tombstoned streams (the tombstone stays), and all but
     * the last record of each metadata stream. Survivors keep their positions.
     */
    scavenge(): { removed: number } {
      const keep = new Set<LogRecord>();
      for (const [stream, s] of streams) {
        const shows = s.tombstoned ? (r: LogRecord) => r.type === TOMBSTONE_TYPE : visible(stream);
        for (const r of s.records) if (shows(r)) keep.add(r);
      }
      const survivors = all.filter((r) => keep.has(r));
      const removed = all.length - survivors.length;
      all.length = 0;
      for (const s of streams.values()) s.records.length = 0;
      for (const r of survivors) {
        all.push(r);
        streams.get(r.stream)!.records.push(r);
      }
      if (fd !== null && options.file) {
        const temporary = `${options.file}.scavenge`;
        writeFileSync(temporary, `${survivors.map(toLine).join('')}${JSON.stringify({ next: next.toString() })}\n`);
        closeSync(fd);
        renameSync(temporary, options.file);
        fd = openSync(options.file, 'a');
      }
      return { removed };
    },

    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
      listeners.clear();
    },
  };
};

export type Log = ReturnType<typeof createLog>;
