import { Worker } from 'node:worker_threads';
import type { SandboxLimits, SandboxReply, SandboxRequest } from './sandboxProtocol.ts';

export type SandboxOutcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/**
 * Runs evaluator JavaScript away from the server: a WebAssembly engine (QuickJS) on a worker
 * thread of its own, one evaluation at a time, each with a deadline and a heap limit. A worker that
 * does not answer in time (the engine stuck where it cannot be interrupted) is terminated and a
 * new one started; the main thread never runs evaluator code, so ingest and requests carry on.
 */
export type CodeSandbox = {
  /** Null when the source compiles as a module; the engine's reason otherwise. */
  parseProblem(source: string): Promise<string | null>;
  /** Calls the module's `evaluate(args)`; what it returned (awaited), or why it failed. */
  run(source: string, args: unknown): Promise<SandboxOutcome>;
  close(): Promise<void>;
};

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { timeoutMs: 1000, memoryBytes: 32 * 1024 * 1024 };

const WORKER_URL = new URL('./codeSandboxWorker.ts', import.meta.url);
/** Beyond the engine's own deadline: loading the engine, and the answer's way back. */
const GRACE_MS = 5000;

type Pending = { readonly request: SandboxRequest; readonly resolve: (reply: SandboxReply) => void };

export const createCodeSandbox = (limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS): CodeSandbox => {
  let worker: Worker | null = null;
  let nextId = 1;
  let current: (Pending & { timer: NodeJS.Timeout }) | null = null;
  const queue: Pending[] = [];
  let closed = false;

  const finish = (reply: SandboxReply) => {
    if (current === null || current.request.id !== reply.id) return;
    clearTimeout(current.timer);
    const { resolve } = current;
    current = null;
    resolve(reply);
    pump();
  };

  const drop = (reason: string) => {
    const w = worker;
    worker = null;
    if (current) finish({ id: current.request.id, ok: false, error: reason });
    void w?.terminate();
  };

  const spawn = (): Worker => {
    const w = new Worker(WORKER_URL, {
      // No environment and a bounded heap: the engine's own limit is the real one, this is the backstop.
      env: {},
      resourceLimits: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 },
    });
    w.on('message', (reply: SandboxReply) => finish(reply));
    w.on('error', (error) => {
      if (worker === w) drop(`InternalError: the sandbox failed (${error.message})`);
    });
    w.on('exit', () => {
      if (worker === w) drop('InternalError: the sandbox stopped');
    });
    w.unref();
    return w;
  };

  const pump = () => {
    if (current !== null || closed) return;
    const next = queue.shift();
    if (next === undefined) return;
    worker ??= spawn();
    const timer = setTimeout(() => drop(`InternalError: interrupted after ${limits.timeoutMs} ms`), limits.timeoutMs + GRACE_MS);
    current = { ...next, timer };
    worker.postMessage(next.request);
  };

  const ask = (request: SandboxRequest): Promise<SandboxReply> =>
    new Promise((resolve) => {
      if (closed) return resolve({ id: request.id, ok: false, error: 'InternalError: the sandbox is closed' });
      queue.push({ request, resolve });
      pump();
    });

  return {
    async parseProblem(source) {
      const reply = await ask({ kind: 'parse', id: nextId++, source });
      return reply.ok ? null : reply.error;
    },
    async run(source, args) {
      const argsJson = JSON.stringify(args ?? null);
      const reply = await ask({ kind: 'run', id: nextId++, source, argsJson, limits });
      if (!reply.ok) return reply;
      return { ok: true, value: reply.json === null ? null : JSON.parse(reply.json) };
    },
    async close() {
      closed = true;
      for (const p of queue.splice(0)) p.resolve({ id: p.request.id, ok: false, error: 'InternalError: the sandbox is closed' });
      if (current) drop('InternalError: the sandbox is closed');
      await worker?.terminate();
      worker = null;
    },
  };
};
