import * as grpc from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import {
  AppendTooLarge,
  createLog,
  type Expected,
  type Log,
  type LogRecord,
  METADATA_TYPE,
  type Proposed,
  StreamDeleted,
  TOMBSTONE_REVISION,
  TOMBSTONE_TYPE,
  ticksNow,
  WrongExpected,
} from './eventStoreDbLog.ts';

/**
 * A stand-in for EventStoreDB / KurrentDB (none can be obtained here): a gRPC server on a loopback
 * port speaking the server's real API, built from the service definitions and messages the official
 * client package ships (`@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1`), so both the
 * client's grpc-js calls (appends, deletes, subscriptions, operations) and its native Rust bridge
 * (`@kurrent/bridge`, which sends `Streams.Read` for `readStream`/`readAll` over its own HTTP/2
 * connection) talk to it as they would to the server.
 *
 * What it does, with the server's semantics and status codes:
 * - `ServerFeatures.GetSupportedMethods`: lists what is served below (not `BatchAppend`, so the
 *   client appends with `Streams.Append`, as it does with servers before 21.10).
 * - `Streams.Append` with expected revision any / no stream / stream exists / exact; a wrong one
 *   answers `wrong_expected_version` with the current revision (or no stream) in the response, as
 *   the server does; idempotent retries (same event ids) succeed without writing twice; appends
 *   over `maxAppendSize` (the server's default 1 MiB unless configured) are refused with
 *   INVALID_ARGUMENT / `maximum-append-size-exceeded`.
 * - `Streams.Read` of a stream or of `$all`, forwards and backwards, from start, end, a revision
 *   or a position (forwards inclusive, backwards exclusive, as the server), with `count`; `$all`
 *   reads and subscriptions filter on stream name or event type, by regex or prefixes; a stream
 *   that does not exist answers `stream_not_found`; a tombstoned one FAILED_PRECONDITION /
 *   `stream-deleted`.
 * - Catch-up subscriptions to `$all` (and to a stream): confirmation, the backlog, `caught_up`,
 *   then live events; filtered subscriptions send checkpoints (every
 *   `checkpointIntervalMultiplier` × window events scanned, and when caught up).
 * - Stream metadata: the `$$<stream>` metadata stream (`$metadata` events) with `$maxAge`,
 *   `$maxCount`, `$tb`; reads of a stream hide what they exclude; `$all` still shows it until a
 *   scavenge removes it, as on the server.
 * - `Streams.Delete` (soft: `$tb` past the last revision; appending again continues the
 *   revisions) and `Streams.Tombstone` (a `$streamDeleted` record; the stream can never be written
 *   or read again), both with expected revision (FAILED_PRECONDITION / `wrong-expected-version`).
 * - `Operations.StartScavenge`: removes what reads can no longer show (runs to completion before
 *   answering STARTED); survivors keep their positions.
 * - Faults for tests: `stop()`/`start()` on the same port (clients see UNAVAILABLE), `hold()`
 *   (calls wait, so clients see DEADLINE_EXCEEDED), and `file` persistence so a restart keeps the log.
 *
 * What it does NOT do: TLS, authentication and ACLs (`$acl` is ignored; run it with `tls=false`),
 * clustering and gossip (single node, no leader elections), `BatchAppend`, the v2 multi-stream
 * append, persistent subscriptions, projections, user management, `$by_category`-style system
 * streams and link events (`resolveLinkTos` has nothing to resolve), explicit transactions (commit
 * = prepare for every record), `$cacheControl`, and the server's chunk files (one JSON-lines file).
 * Reads show a stream whose events all expired as not found. Scavenging is immediate and complete.
 */

const require = createRequire(import.meta.url);
const PROTOCOLS = '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1';
const streamsPb: typeof import('@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/streams_pb.js') = require(
  `${PROTOCOLS}/streams_pb.js`,
);
const sharedPb: typeof import('@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/shared_pb.js') = require(
  `${PROTOCOLS}/shared_pb.js`,
);
const featuresPb: typeof import('@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/serverfeatures_pb.js') = require(
  `${PROTOCOLS}/serverfeatures_pb.js`,
);
const operationsPb: typeof import('@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/operations_pb.js') = require(
  `${PROTOCOLS}/operations_pb.js`,
);
const { StreamsService } = require(`${PROTOCOLS}/streams_grpc_pb.js`);
const { ServerFeaturesService } = require(`${PROTOCOLS}/serverfeatures_grpc_pb.js`);
const { OperationsService } = require(`${PROTOCOLS}/operations_grpc_pb.js`);

type ReadReq = InstanceType<typeof streamsPb.ReadReq>;
type ReadResp = InstanceType<typeof streamsPb.ReadResp>;
type AppendReq = InstanceType<typeof streamsPb.AppendReq>;
type UUIDMessage = InstanceType<typeof sharedPb.UUID>;
const ReadOptions = streamsPb.ReadReq.Options;

export const STANDIN_VERSION = '24.10.0-loupe-standin';

const u64 = (v: bigint) => BigInt.asUintN(64, v).toString();
const i64 = (v: bigint) => BigInt.asIntN(64, v).toString();

const streamName = (id: InstanceType<typeof sharedPb.StreamIdentifier> | undefined) =>
  Buffer.from(id?.getStreamName_asU8() ?? []).toString('utf8');
const identifier = (stream: string) => new sharedPb.StreamIdentifier().setStreamName(Buffer.from(stream, 'utf8'));

const uuidToString = (uuid: UUIDMessage | undefined): string => {
  if (!uuid) return randomUUID();
  if (uuid.hasStructured()) {
    const s = uuid.getStructured()!;
    const ms = BigInt.asUintN(64, BigInt(s.getMostSignificantBits())).toString(16).padStart(16, '0');
    const ls = BigInt.asUintN(64, BigInt(s.getLeastSignificantBits())).toString(16).padStart(16, '0');
    return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-${ms.slice(12)}-${ls.slice(0, 4)}-${ls.slice(4)}`;
  }
  return uuid.getString();
};
const uuidMessage = (id: string, structured: boolean): UUIDMessage => {
  const uuid = new sharedPb.UUID();
  if (!structured) return uuid.setString(id);
  const hex = id.replaceAll('-', '');
  return uuid.setStructured(
    new sharedPb.UUID.Structured()
      .setMostSignificantBits(i64(BigInt(`0x${hex.slice(0, 16)}`)))
      .setLeastSignificantBits(i64(BigInt(`0x${hex.slice(16)}`))),
  );
};

/** An RPC error the way the server sends it: a status, and the `exception` trailer the clients switch on. */
const rpcError = (code: grpc.status, details: string, trailers: Record<string, string>): Partial<grpc.StatusObject> => {
  const metadata = new grpc.Metadata();
  for (const [k, v] of Object.entries(trailers)) metadata.set(k, v);
  return { code, details, metadata };
};
const streamDeletedError = (stream: string) =>
  rpcError(grpc.status.FAILED_PRECONDITION, `Event stream '${stream}' is deleted.`, { exception: 'stream-deleted', 'stream-name': stream });

const expectedFrom = (
  options: { getExpectedStreamRevisionCase(): number; getRevision(): string },
  cases: { REVISION: number; NO_STREAM: number; ANY: number; STREAM_EXISTS: number },
): Expected => {
  switch (options.getExpectedStreamRevisionCase()) {
    case cases.REVISION:
      return BigInt(options.getRevision());
    case cases.NO_STREAM:
      return 'no_stream';
    case cases.STREAM_EXISTS:
      return 'stream_exists';
    default:
      return 'any';
  }
};
/** The numbers the server puts in `expected-version` trailers: -1 no stream, -2 any, -4 stream exists. */
const expectedNumber = (e: Expected) => (e === 'no_stream' ? '-1' : e === 'any' ? '-2' : e === 'stream_exists' ? '-4' : e.toString());

type Filter = { readonly matches: (r: LogRecord) => boolean; readonly checkpointEvery: number } | null;

const filterFrom = (options: InstanceType<typeof ReadOptions>): Filter => {
  if (options.getFilterOptionCase() !== ReadOptions.FilterOptionCase.FILTER) return null;
  const f = options.getFilter()!;
  const onStream = f.getFilterCase() === ReadOptions.FilterOptions.FilterCase.STREAM_IDENTIFIER;
  const expression = onStream ? f.getStreamIdentifier()! : f.getEventType()!;
  const regex = expression.getRegex() ? new RegExp(expression.getRegex()) : null;
  const prefixes = expression.getPrefixList();
  const field = (r: LogRecord) => (onStream ? r.stream : r.type);
  const window = f.getWindowCase() === ReadOptions.FilterOptions.WindowCase.MAX ? f.getMax() : 32;
  return {
    matches: (r) => (regex ? regex.test(field(r)) : prefixes.length === 0 || prefixes.some((p) => field(r).startsWith(p))),
    checkpointEvery: Math.max(1, window * Math.max(1, f.getCheckpointintervalmultiplier())),
  };
};

const recordedEvent = (r: LogRecord, structured: boolean) => {
  const e = new streamsPb.ReadResp.ReadEvent.RecordedEvent()
    .setId(uuidMessage(r.id, structured))
    .setStreamIdentifier(identifier(r.stream))
    .setStreamRevision(u64(r.revision))
    .setPreparePosition(u64(r.position))
    .setCommitPosition(u64(r.position))
    .setCustomMetadata(r.metadata)
    .setData(r.data);
  const map = e.getMetadataMap();
  map.set('type', r.type);
  map.set('content-type', r.contentType);
  map.set('created', r.created.toString());
  return e;
};
const eventResp = (r: LogRecord, structured: boolean): ReadResp =>
  new streamsPb.ReadResp().setEvent(
    new streamsPb.ReadResp.ReadEvent().setEvent(recordedEvent(r, structured)).setCommitPosition(u64(r.position)),
  );

/** Writes with back-pressure: waits for 'drain' when the HTTP/2 stream's buffer is full. */
const send = async (call: grpc.ServerWritableStream<ReadReq, ReadResp>, message: ReadResp) => {
  if (!call.write(message)) await new Promise<void>((resolve) => call.once('drain', resolve));
};

export type EventStoreDbOptions = {
  /** 0 (default): a random free port. A restart keeps the port. */
  readonly port?: number;
  readonly host?: string;
  /** Keep the log in this file (JSON lines) so that a restart keeps it. Default: memory only. */
  readonly file?: string;
  /** The server's MaxAppendSize (default 1 MiB, as EventStoreDB's). */
  readonly maxAppendSize?: number;
  /** Every call is logged here (debugging). */
  readonly trace?: (line: string) => void;
};

export type EventStoreDbStandIn = Awaited<ReturnType<typeof startEventStoreDb>>;

export const startEventStoreDb = async (options: EventStoreDbOptions = {}) => {
  const host = options.host ?? '127.0.0.1';
  let log: Log = createLog({ file: options.file, maxAppendSize: options.maxAppendSize ?? 1024 * 1024 });
  let server: grpc.Server | null = null;
  let port = options.port ?? 0;
  let held: Promise<void> | null = null;
  let release: (() => void) | null = null;
  const trace = options.trace ?? (() => undefined);
  const gate = async () => {
    while (held) await held;
  };

  const readStream = async (call: grpc.ServerWritableStream<ReadReq, ReadResp>, options: InstanceType<typeof ReadOptions>) => {
    const stream = streamName(options.getStream()!.getStreamIdentifier());
    const structured = options.getUuidOption()?.getContentCase() === ReadOptions.UUIDOption.ContentCase.STRUCTURED;
    const backwards = options.getReadDirection() === ReadOptions.ReadDirection.BACKWARDS;
    const subscription = options.getCountOptionCase() === ReadOptions.CountOptionCase.SUBSCRIPTION;
    let records: LogRecord[] | null;
    try {
      records = log.readStream(stream);
    } catch (error) {
      if (error instanceof StreamDeleted) return void call.emit('error', streamDeletedError(stream));
      throw error;
    }
    const revisionCase = options.getStream()!.getRevisionOptionCase();
    const Cases = ReadOptions.StreamOptions.RevisionOptionCase;
    if (subscription) {
      await send(
        call,
        new streamsPb.ReadResp().setConfirmation(new streamsPb.ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID())),
      );
      let after = revisionCase === Cases.REVISION ? BigInt(options.getStream()!.getRevision()) : -1n;
      if (revisionCase === Cases.END) after = log.currentRevision(stream) ?? -1n;
      return follow(
        call,
        structured,
        null,
        (r) => r.stream === stream && r.revision > after && r.revision !== TOMBSTONE_REVISION,
        () => {
          after = -2n; // caught up once: from here on every new record of the stream goes out
        },
      );
    }
    if (records === null) {
      return void (await send(
        call,
        new streamsPb.ReadResp().setStreamNotFound(new streamsPb.ReadResp.StreamNotFound().setStreamIdentifier(identifier(stream))),
      ));
    }
    let from: bigint;
    if (revisionCase === Cases.REVISION) from = BigInt(options.getStream()!.getRevision());
    else if (revisionCase === Cases.END) from = backwards ? TOMBSTONE_REVISION : (records.at(-1)?.revision ?? -1n) + 1n;
    else from = backwards ? -1n : 0n;
    const count = BigInt(options.getCount() || '0');
    const selected = backwards ? records.filter((r) => r.revision <= from).reverse() : records.filter((r) => r.revision >= from);
    for (const r of count > 0n ? selected.slice(0, Number(count > 1_000_000_000n ? 1_000_000_000n : count)) : []) {
      if (call.cancelled) return;
      await send(call, eventResp(r, structured));
    }
  };

  const readAll = async (call: grpc.ServerWritableStream<ReadReq, ReadResp>, options: InstanceType<typeof ReadOptions>) => {
    const all = options.getAll()!;
    const structured = options.getUuidOption()?.getContentCase() === ReadOptions.UUIDOption.ContentCase.STRUCTURED;
    const backwards = options.getReadDirection() === ReadOptions.ReadDirection.BACKWARDS;
    const filter = filterFrom(options);
    const Cases = ReadOptions.AllOptions.AllOptionCase;
    const position = all.getAllOptionCase() === Cases.POSITION ? BigInt(all.getPosition()!.getCommitPosition()) : null;
    if (options.getCountOptionCase() === ReadOptions.CountOptionCase.SUBSCRIPTION) {
      await send(
        call,
        new streamsPb.ReadResp().setConfirmation(new streamsPb.ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID())),
      );
      // A subscription from a position starts after it (exclusive), from the start with the first record.
      const after = all.getAllOptionCase() === Cases.END ? log.head() : (position ?? -1n);
      return follow(call, structured, filter, (r) => r.position > after);
    }
    let count = Number(BigInt(options.getCount() || '0') > 1_000_000_000n ? 1_000_000_000n : BigInt(options.getCount() || '0'));
    const records = log.records();
    let i: number;
    if (backwards) i = (all.getAllOptionCase() === Cases.POSITION ? log.indexAt(position!) : records.length) - 1;
    else i = all.getAllOptionCase() === Cases.END ? records.length : all.getAllOptionCase() === Cases.POSITION ? log.indexAt(position!) : 0;
    let scanned = 0;
    while (count > 0 && i >= 0 && i < records.length) {
      if (call.cancelled) return;
      const r = records[i]!;
      i += backwards ? -1 : 1;
      scanned++;
      if (filter && !filter.matches(r)) {
        if (scanned % filter.checkpointEvery === 0) await send(call, checkpoint(r.position));
        continue;
      }
      count--;
      await send(call, eventResp(r, structured));
    }
  };

  const checkpoint = (position: bigint) =>
    new streamsPb.ReadResp().setCheckpoint(
      new streamsPb.ReadResp.Checkpoint().setCommitPosition(u64(position)).setPreparePosition(u64(position)),
    );

  /** A catch-up subscription: the backlog after the start, `caught_up`, then live records as they are appended. */
  const follow = (
    call: grpc.ServerWritableStream<ReadReq, ReadResp>,
    structured: boolean,
    filter: Filter,
    wanted: (r: LogRecord) => boolean,
    onCaughtUp?: () => void,
  ) =>
    new Promise<void>((resolve) => {
      let cursor = 0;
      // Find the first record the subscription wants without scanning events it skips by position.
      const first = log.records().findIndex(wanted);
      cursor = first < 0 ? log.records().length : first;
      let caughtUp = false;
      let pumping = false;
      let again = false;
      let scanned = 0;
      let lastPosition: bigint | null = null;
      const subscribedLog = log;
      const pump = async () => {
        if (pumping) {
          again = true;
          return;
        }
        pumping = true;
        try {
          do {
            again = false;
            const records = subscribedLog.records();
            // A scavenge may have removed records: find the cursor again by position.
            if (lastPosition !== null && (cursor > records.length || records[cursor - 1]?.position !== lastPosition)) {
              cursor = log.indexAt(lastPosition + 1n);
            }
            while (cursor < records.length) {
              if (call.cancelled || call.writableEnded) return;
              const r = records[cursor++]!;
              lastPosition = r.position;
              if (!wanted(r)) continue;
              scanned++;
              if (filter && !filter.matches(r)) {
                if (scanned % filter.checkpointEvery === 0) await send(call, checkpoint(r.position));
                continue;
              }
              await send(call, eventResp(r, structured));
            }
            if (!caughtUp) {
              caughtUp = true;
              onCaughtUp?.();
              const head = log.head();
              await send(call, new streamsPb.ReadResp().setCaughtUp(new streamsPb.ReadResp.CaughtUp()));
              if (filter) await send(call, checkpoint(head));
            }
          } while (again);
        } catch {
          // The client went away mid-write: the 'cancelled'/'close' handlers end the subscription.
        } finally {
          pumping = false;
        }
      };
      const stop = subscribedLog.onAppend(() => void pump());
      const end = () => {
        stop();
        resolve();
      };
      call.on('cancelled', end);
      call.on('close', end);
      call.on('error', end);
      void pump();
    });

  const streamsImpl = {
    read: async (call: grpc.ServerWritableStream<ReadReq, ReadResp>) => {
      await gate();
      const options = call.request.getOptions()!;
      const isAll = options.getStreamOptionCase() === ReadOptions.StreamOptionCase.ALL;
      trace(
        `Read ${isAll ? '$all' : streamName(options.getStream()!.getStreamIdentifier())} count=${options.getCount()} dir=${options.getReadDirection()}`,
      );
      try {
        if (isAll) await readAll(call, options);
        else await readStream(call, options);
        if (!call.writableEnded && !call.cancelled) call.end();
      } catch (error) {
        if (!call.cancelled) call.emit('error', { code: grpc.status.UNKNOWN, details: String(error) });
      }
    },

    append: (
      call: grpc.ServerReadableStream<AppendReq, InstanceType<typeof streamsPb.AppendResp>>,
      callback: grpc.sendUnaryData<InstanceType<typeof streamsPb.AppendResp>>,
    ) => {
      let stream = '';
      let expected: Expected = 'any';
      const proposed: Proposed[] = [];
      call.on('data', (req: AppendReq) => {
        if (req.hasOptions()) {
          const o = req.getOptions()!;
          stream = streamName(o.getStreamIdentifier());
          expected = expectedFrom(o, streamsPb.AppendReq.Options.ExpectedStreamRevisionCase);
          return;
        }
        const m = req.getProposedMessage()!;
        const map = m.getMetadataMap();
        proposed.push({
          id: uuidToString(m.getId()),
          type: map.get('type') ?? '',
          contentType: map.get('content-type') ?? 'application/octet-stream',
          metadata: Buffer.from(m.getCustomMetadata_asU8()),
          data: Buffer.from(m.getData_asU8()),
        });
      });
      call.on('end', async () => {
        await gate();
        trace(`Append ${stream} ${proposed.length} events expected=${String(expected)}`);
        try {
          const { records, current } = log.append(stream, proposed, expected);
          const success = new streamsPb.AppendResp.Success();
          if (current === null) success.setNoStream(new sharedPb.Empty());
          else success.setCurrentRevision(u64(current));
          const last = records.at(-1);
          if (last)
            success.setPosition(
              new streamsPb.AppendResp.Position().setCommitPosition(u64(last.position)).setPreparePosition(u64(last.position)),
            );
          else success.setNoPosition(new sharedPb.Empty());
          callback(null, new streamsPb.AppendResp().setSuccess(success));
        } catch (error) {
          if (error instanceof WrongExpected) {
            const wrong = new streamsPb.AppendResp.WrongExpectedVersion();
            if (error.current === null) wrong.setCurrentNoStream(new sharedPb.Empty());
            else wrong.setCurrentRevision(u64(error.current));
            const e = error.expected;
            if (e === 'any') wrong.setExpectedAny(new sharedPb.Empty());
            else if (e === 'no_stream') wrong.setExpectedNoStream(new sharedPb.Empty());
            else if (e === 'stream_exists') wrong.setExpectedStreamExists(new sharedPb.Empty());
            else wrong.setExpectedRevision(u64(e));
            return callback(null, new streamsPb.AppendResp().setWrongExpectedVersion(wrong));
          }
          if (error instanceof StreamDeleted) return callback(streamDeletedError(stream));
          if (error instanceof AppendTooLarge) {
            return callback(
              rpcError(grpc.status.INVALID_ARGUMENT, error.message, {
                exception: 'maximum-append-size-exceeded',
                'maximum-append-size': String(error.maxAppendSize),
              }),
            );
          }
          callback({ code: grpc.status.UNKNOWN, details: String(error) });
        }
      });
    },

    delete: (call: grpc.ServerUnaryCall<InstanceType<typeof streamsPb.DeleteReq>, unknown>, callback: grpc.sendUnaryData<unknown>) =>
      removeStream(call, callback, false),
    tombstone: (call: grpc.ServerUnaryCall<InstanceType<typeof streamsPb.TombstoneReq>, unknown>, callback: grpc.sendUnaryData<unknown>) =>
      removeStream(call, callback, true),

    batchAppend: (call: grpc.ServerDuplexStream<unknown, unknown>) =>
      call.emit('error', { code: grpc.status.UNIMPLEMENTED, details: 'BatchAppend is not served by the stand-in' }),
  };

  const removeStream = async (
    call: grpc.ServerUnaryCall<InstanceType<typeof streamsPb.DeleteReq> | InstanceType<typeof streamsPb.TombstoneReq>, unknown>,
    callback: grpc.sendUnaryData<unknown>,
    hard: boolean,
  ) => {
    await gate();
    const o = call.request.getOptions()!;
    const stream = streamName(o.getStreamIdentifier());
    const expected = expectedFrom(o, streamsPb.DeleteReq.Options.ExpectedStreamRevisionCase);
    trace(`${hard ? 'Tombstone' : 'Delete'} ${stream} expected=${String(expected)}`);
    if (log.isTombstoned(stream)) return callback(streamDeletedError(stream));
    const current = log.currentRevision(stream);
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current === null) ||
      (expected === 'stream_exists' && current !== null) ||
      (typeof expected === 'bigint' && expected === current);
    if (!ok) {
      const trailers: Record<string, string> = {
        exception: 'wrong-expected-version',
        'stream-name': stream,
        'expected-version': expectedNumber(expected),
      };
      if (current !== null) trailers['actual-version'] = current.toString();
      return callback(rpcError(grpc.status.FAILED_PRECONDITION, `Append failed due to WrongExpectedVersion. Stream: ${stream}`, trailers));
    }
    const Resp = hard ? streamsPb.TombstoneResp : streamsPb.DeleteResp;
    let position: bigint;
    if (hard) {
      const { records } = log.append(
        stream,
        [
          {
            id: randomUUID(),
            type: TOMBSTONE_TYPE,
            contentType: 'application/octet-stream',
            metadata: Buffer.alloc(0),
            data: Buffer.alloc(0),
          },
        ],
        'any',
      );
      position = records[0]!.position;
    } else {
      const previous = (() => {
        const last = log.readStream(`$$${stream}`)?.at(-1);
        try {
          return last ? JSON.parse(last.data.toString('utf8')) : {};
        } catch {
          return {};
        }
      })();
      const tb = (current ?? -1n) + 1n;
      const { records } = log.append(
        `$$${stream}`,
        [
          {
            id: randomUUID(),
            type: METADATA_TYPE,
            contentType: 'application/json',
            metadata: Buffer.alloc(0),
            data: Buffer.from(JSON.stringify({ ...previous, $tb: Number(tb) })),
          },
        ],
        'any',
      );
      position = records[0]!.position;
    }
    const resp = new Resp();
    resp.setPosition(new Resp.Position().setCommitPosition(u64(position)).setPreparePosition(u64(position)));
    callback(null, resp);
  };

  const served = [
    ['event_store.client.streams.Streams', ['read', 'append', 'delete', 'tombstone']],
    ['event_store.client.operations.Operations', ['startscavenge']],
    ['event_store.client.server_features.ServerFeatures', ['getsupportedmethods']],
  ] as const;
  const featuresImpl = {
    getSupportedMethods: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => {
      const methods = served.flatMap(([service, names]) =>
        names.map((name) =>
          new featuresPb.SupportedMethod()
            .setServiceName(service)
            .setMethodName(name)
            .setFeaturesList(name === 'read' ? ['position', 'events', 'all'] : []),
        ),
      );
      callback(null, new featuresPb.SupportedMethods().setEventStoreServerVersion(STANDIN_VERSION).setMethodsList(methods));
    },
  };
  const unimplemented = (_call: unknown, callback: grpc.sendUnaryData<unknown>) =>
    callback({ code: grpc.status.UNIMPLEMENTED, details: 'not served by the stand-in' });
  const operationsImpl = {
    startScavenge: async (_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      await gate();
      const { removed } = log.scavenge();
      trace(`Scavenge removed ${removed}`);
      callback(
        null,
        new operationsPb.ScavengeResp().setScavengeId(randomUUID()).setScavengeResult(operationsPb.ScavengeResp.ScavengeResult.STARTED),
      );
    },
    stopScavenge: unimplemented,
    shutdown: unimplemented,
    mergeIndexes: unimplemented,
    resignNode: unimplemented,
    setNodePriority: unimplemented,
    restartPersistentSubscriptions: unimplemented,
  };

  const start = async () => {
    if (server) return;
    const s = new grpc.Server({ 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 });
    s.addService(StreamsService, streamsImpl as unknown as grpc.UntypedServiceImplementation);
    s.addService(ServerFeaturesService, featuresImpl as unknown as grpc.UntypedServiceImplementation);
    s.addService(OperationsService, operationsImpl as unknown as grpc.UntypedServiceImplementation);
    port = await new Promise<number>((resolve, reject) =>
      s.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    server = s;
  };

  /** Ends every call and closes the port, as a server that went down: clients get UNAVAILABLE. */
  const stop = async () => {
    const s = server;
    if (!s) return;
    server = null;
    s.forceShutdown();
    // Let the sessions' closing reach the clients before the caller goes on: a call made after
    // stop() then meets a closed port (UNAVAILABLE), as after a crash, not a closing session.
    await new Promise((resolve) => setTimeout(resolve, 100));
    // With a file the log is re-read on start, as a restarted server reads its chunks.
    if (options.file) log.close();
  };

  await start();
  return {
    get port() {
      return port;
    },
    get url() {
      return `esdb://${host}:${port}?tls=false`;
    },
    get log() {
      return log;
    },
    /** Starts again on the same port (after stop()); with a file, from what it holds. */
    async start() {
      if (server) return;
      if (options.file) log = createLog({ file: options.file, maxAppendSize: options.maxAppendSize ?? 1024 * 1024 });
      await start();
    },
    stop,
    /** Calls wait until release() (clients with a deadline see DEADLINE_EXCEEDED). */
    hold() {
      held ??= new Promise<void>((resolve) => {
        release = () => {
          held = null;
          release = null;
          resolve();
        };
      });
    },
    release: () => release?.(),
    /** Sets a stream's metadata as a client would (appends to `$$<stream>`). */
    setStreamMetadata(stream: string, metadata: Record<string, unknown>) {
      log.append(
        `$$${stream}`,
        [
          {
            id: randomUUID(),
            type: METADATA_TYPE,
            contentType: 'application/json',
            metadata: Buffer.alloc(0),
            data: Buffer.from(JSON.stringify(metadata)),
          },
        ],
        'any',
      );
    },
    now: ticksNow,
    async close() {
      await stop();
      log.close();
    },
  };
};
