import { Worker } from 'node:worker_threads';
import type { PgliteSession } from './pgliteDriver.ts';
import {
  deserializeError,
  type PgliteWorkerReply,
  type PgliteWorkerRequest,
  type PgliteWorkerResult,
  type PgliteWorkerStart,
} from './pgliteWorkerProtocol.ts';

/**
 * The worker runs our TypeScript directly: a worker thread inherits the process's flags, so the
 * loader the process was started with (`--import ops/tsLoader.mjs`) registers itself there too.
 */
const WORKER_URL = new URL('./pgliteWorker.ts', import.meta.url);

type Waiter = { resolve: (reply: PgliteWorkerReply) => void; reject: (error: Error) => void };

/**
 * Embedded PGlite in a worker thread of its own (pgliteWorker.ts), behind the same `query` the
 * slonik driver uses on an in-thread PGlite. PGlite is WebAssembly and runs each statement as one
 * synchronous stretch: on the server's thread a 50,000-span append or a filter over every span
 * held /healthz and every other request for seconds (BENCHMARKS §19b, §19c). Here only the
 * messages' copies touch the server's thread. Values of the types the caller parses itself come
 * back as text and are parsed here (functions cannot cross threads); the rest PGlite parses.
 * If the worker dies (out of memory, a WebAssembly abort) every waiting and later query fails
 * with the reason and `lost` resolves with it: `loupe serve` then stops (exit 1) rather than go
 * on without its database, so a supervisor restarts it.
 */
export const startPgliteInWorker = async (start: PgliteWorkerStart): Promise<PgliteSession & { readonly lost: Promise<Error> }> => {
  const worker = new Worker(WORKER_URL, { workerData: start });
  const waiting = new Map<number, Waiter>();
  let nextId = 1;
  let dead: Error | null = null;
  let closing = false;
  let markLost!: (error: Error) => void;
  const lost = new Promise<Error>((resolve) => (markLost = resolve));
  let ready!: { resolve: () => void; reject: (error: Error) => void };
  const waitReady = new Promise<void>((resolve, reject) => (ready = { resolve, reject }));

  const die = (error: Error) => {
    if (dead === null && !closing) markLost(error);
    dead ??= error;
    ready.reject(error);
    for (const waiter of waiting.values()) waiter.reject(error);
    waiting.clear();
  };
  worker.on('message', (reply: PgliteWorkerReply) => {
    if (reply.kind === 'ready') return ready.resolve();
    if (reply.kind === 'failedToStart') return die(deserializeError(reply.error));
    const waiter = waiting.get(reply.id);
    waiting.delete(reply.id);
    waiter?.resolve(reply);
  });
  worker.on('error', (error) => die(Object.assign(new Error(`embedded PGlite stopped: ${error.message}`), { cause: error })));
  worker.on('exit', (code) => die(new Error(`embedded PGlite's worker thread exited (code ${code})`)));

  const ask = (request: PgliteWorkerRequest): Promise<PgliteWorkerReply> =>
    new Promise((resolve, reject) => {
      if (dead) return reject(dead);
      waiting.set(request.id, { resolve, reject });
      worker.postMessage(request);
    });

  await waitReady;
  return {
    waitReady,
    lost,
    query: async <T>(
      sql: string,
      params: unknown[] = [],
      options: { parsers?: Record<number, (value: string) => unknown>; blob?: Blob } = {},
    ) => {
      const parsers = options.parsers ?? {};
      const reply = await ask({
        kind: 'query',
        id: nextId++,
        sql,
        params,
        rawTypes: Object.keys(parsers).map(Number),
        ...(options.blob === undefined ? {} : { blob: options.blob }),
      });
      if (reply.kind === 'error') throw deserializeError(reply.error);
      if (reply.kind !== 'result') throw new Error(`unexpected reply from embedded PGlite's worker: ${reply.kind}`);
      const result: PgliteWorkerResult = reply.result;
      for (const field of result.fields) {
        const parse = parsers[field.dataTypeID];
        if (parse === undefined) continue;
        for (const row of result.rows) {
          const value = row[field.name];
          if (typeof value === 'string') row[field.name] = parse(value);
        }
      }
      return result as PgliteWorkerResult & { rows: T[] };
    },
    close: async () => {
      closing = true;
      if (!dead) await ask({ kind: 'close', id: nextId++ }).catch(() => undefined);
      await worker.terminate();
    },
  };
};
