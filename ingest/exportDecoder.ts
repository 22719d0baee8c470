import { Worker } from 'node:worker_threads';
import { decodeAndRoute, type DecodedSpans, type DecodeJob, type WorkerReply, type WorkerRequest } from './decodeJob.ts';
import { IngestError, type IngestErrorCode } from './ingestError.ts';

/**
 * Decodes and routes OTLP export bodies and Phoenix span JSON (`POST /v1/projects/{id}/spans`).
 * A large body is decoded in a worker thread: protobuf or JSON decoding of 50,000 spans takes over
 * a second of CPU (parsing and validating them as Phoenix JSON, about four), and on the main thread that second
 * would be one task during which /healthz, other requests and the projections wait. The result
 * comes back in slices the main thread asks for one at a time, so deserializing it is cut into
 * short tasks too. Small bodies are decoded inline: for them the round trip costs more than it saves.
 */
export type ExportDecoder = {
  /** Takes ownership of `job.body` (its memory may be moved to the worker). */
  decode(job: DecodeJob): Promise<DecodedSpans>;
  /** Stops the workers; later decodes start new ones. */
  close(): Promise<void>;
};

export type ExportDecoderOptions = {
  /** Worker threads decoding at once (each takes a core while it works). */
  readonly workers: number;
  /** Bodies smaller than this are decoded on the calling thread. */
  readonly offThreadFromBytes: number;
  /** Resources or spans per slice sent back (default 1,000). */
  readonly sliceSize?: number;
  /**
   * Heap limit of each worker (V8 old space, MiB). A body whose decoded form does not fit (a
   * 64 MiB body of tiny spans is millions of objects) ends that worker, not the server: that
   * request is answered 413, the others it held are told to retry, and a new worker starts.
   */
  readonly maxHeapMb?: number;
  /** A worker idle this long is stopped, giving its memory back (default 30 s). */
  readonly idleMs?: number;
};

type Waiter = { resolve: (reply: WorkerReply) => void; reject: (e: Error) => void };
type Handle = {
  readonly worker: Worker;
  readonly waiting: Map<number, Waiter>;
  /** Decodes posted and not yet answered, in order: the worker works on the first. */
  readonly decoding: number[];
  jobs: number;
  idleTimer: NodeJS.Timeout | null;
};

/**
 * The worker runs our TypeScript directly: a worker thread inherits the process's flags, so the
 * loader the process was started with (`--import ops/tsLoader.mjs`) registers itself there too.
 */
const WORKER_URL = new URL('./decodeWorker.ts', import.meta.url);

const asError = (reply: Extract<WorkerReply, { kind: 'failed' }>): Error => {
  if (reply.ingest && reply.code) return new IngestError(reply.code as IngestErrorCode, reply.message);
  return Object.assign(new Error(reply.message), { name: reply.name });
};

/** A body the worker can take without copying: a view of a whole, non-shared ArrayBuffer. */
const transferable = (body: Uint8Array): Uint8Array =>
  body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer ? body : new Uint8Array(body);

export const createExportDecoder = (options: ExportDecoderOptions): ExportDecoder => {
  const sliceSize = options.sliceSize ?? 1000;
  const handles: Handle[] = [];
  let nextId = 1;

  const spawn = (): Handle => {
    const worker = new Worker(WORKER_URL, options.maxHeapMb ? { resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb } } : {});
    // An idle decoder never keeps the process alive (see offThread for a busy one).
    worker.unref();
    const handle: Handle = { worker, waiting: new Map(), decoding: [], jobs: 0, idleTimer: null };
    const die = (e: Error & { code?: string }) => {
      const at = handles.indexOf(handle);
      if (at >= 0) handles.splice(at, 1);
      if (handle.idleTimer) clearTimeout(handle.idleTimer);
      const culprit = e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? handle.decoding[0] : undefined;
      for (const [id, waiter] of handle.waiting) {
        waiter.reject(
          id === culprit
            ? new IngestError(
                'payload_too_large',
                `the request holds too many spans or values to decode within ${options.maxHeapMb} MiB; send smaller batches`,
              )
            : new IngestError('server_busy', `the OTLP decoder restarted (${e.message}); retry`, { 'Retry-After': '1' }),
        );
      }
      handle.waiting.clear();
    };
    worker.on('message', (reply: WorkerReply) => {
      const decoded = reply.kind === 'slice' ? -1 : handle.decoding.indexOf(reply.id);
      if (decoded >= 0) handle.decoding.splice(decoded, 1);
      const waiter = handle.waiting.get(reply.id);
      handle.waiting.delete(reply.id);
      waiter?.resolve(reply);
    });
    worker.on('error', die);
    worker.on('exit', (code) => die(new Error(`exit code ${code}`)));
    handles.push(handle);
    return handle;
  };

  /** The least busy worker, starting one while fewer than allowed exist. */
  const pick = (): Handle => {
    const idle = handles.find((h) => h.jobs === 0);
    const handle = idle ?? (handles.length < options.workers ? spawn() : handles.reduce((a, b) => (b.jobs < a.jobs ? b : a)));
    if (handle.idleTimer) clearTimeout(handle.idleTimer);
    handle.idleTimer = null;
    return handle;
  };

  const stopWhenIdle = (handle: Handle) => {
    if (handle.jobs > 0 || !handles.includes(handle)) return;
    handle.idleTimer = setTimeout(() => {
      const at = handles.indexOf(handle);
      if (handle.jobs > 0 || at < 0) return;
      handles.splice(at, 1);
      void handle.worker.terminate();
    }, options.idleMs ?? 30_000);
    handle.idleTimer.unref();
  };

  const ask = (handle: Handle, message: WorkerRequest, transfer: ArrayBuffer[] = []): Promise<WorkerReply> =>
    new Promise((resolve, reject) => {
      if (!handles.includes(handle))
        return reject(new IngestError('server_busy', 'the OTLP decoder restarted; retry', { 'Retry-After': '1' }));
      handle.waiting.set(message.id, { resolve, reject });
      handle.worker.postMessage(message, transfer);
    });

  const offThread = async (job: DecodeJob): Promise<DecodedSpans> => {
    const handle = pick();
    const id = nextId++;
    if (handle.jobs++ === 0) handle.worker.ref();
    try {
      const body = transferable(job.body);
      handle.decoding.push(id);
      const routed = await ask(handle, { kind: 'decode', id, job: { ...job, body } }, [body.buffer as ArrayBuffer]);
      if (routed.kind === 'failed') throw asError(routed);
      if (routed.kind !== 'routed') throw new Error(`unexpected reply from the OTLP decoding worker: ${routed.kind}`);
      const pull = async <T>(batch: number, what: 'resources' | 'spans', total: number): Promise<T[]> => {
        const all: T[] = [];
        for (let from = 0; from < total; from += sliceSize) {
          const slice = await ask(handle, { kind: 'slice', id, batch, what, from, count: sliceSize });
          if (slice.kind !== 'slice') throw new Error(`unexpected reply from the OTLP decoding worker: ${slice.kind}`);
          for (const item of slice.items) all.push(item as T);
        }
        return all;
      };
      const batches: DecodedSpans['batches'][number][] = [];
      for (const [i, b] of routed.batches.entries()) {
        batches.push({
          projectName: b.projectName,
          resources: await pull(i, 'resources', b.resources),
          spans: await pull(i, 'spans', b.spans),
        });
      }
      const { acceptedSpans, rejectedSpans, errorMessage, phoenix } = routed;
      return { batches, acceptedSpans, rejectedSpans, errorMessage, ...(phoenix ? { phoenix } : {}) };
    } finally {
      if (--handle.jobs === 0) handle.worker.unref();
      if (handles.includes(handle)) handle.worker.postMessage({ kind: 'drop', id } satisfies WorkerRequest);
      stopWhenIdle(handle);
    }
  };

  return {
    decode: async (job) => (job.body.byteLength < options.offThreadFromBytes ? decodeAndRoute(job) : offThread(job)),
    close: async () => {
      const all = handles.splice(0);
      await Promise.all(all.map((h) => h.worker.terminate()));
    },
  };
};
