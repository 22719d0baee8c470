import { parentPort } from 'node:worker_threads';
import variant from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  shouldInterruptAfterDeadline,
  type QuickJSContext,
  type QuickJSSyncVariant,
} from 'quickjs-emscripten-core';
import { EVALUATOR_MODULE, type SandboxReply, type SandboxRequest } from './sandboxProtocol.ts';

/**
 * The code sandbox's thread: QuickJS compiled to WebAssembly. Evaluator code sees only the
 * language itself: no `process`, `require`, `fetch`, file system, timers or environment exist in
 * this engine, and each evaluation gets a fresh runtime with its own heap limit and deadline,
 * dropped afterwards, so nothing carries over from one evaluation to the next.
 */
// The package's types describe its CommonJS build; what ESM imports is the variant itself.
const engine = await newQuickJSWASMModuleFromVariant(variant as unknown as QuickJSSyncVariant);

const MAX_RESULT_CHARS = 100_000;
let spoiled = false;

const errorText = (ctx: QuickJSContext, handle: Parameters<QuickJSContext['dump']>[0]): string => {
  const e = ctx.dump(handle) as unknown;
  handle.dispose();
  if (e && typeof e === 'object' && 'message' in e) {
    const { name, message } = e as { name?: unknown; message?: unknown };
    return `${typeof name === 'string' ? name : 'Error'}: ${String(message)}`;
  }
  return String(e);
};

const parse = (source: string): string | null => {
  const rt = engine.newRuntime();
  try {
    rt.setMemoryLimit(16 * 1024 * 1024);
    rt.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + 1000));
    const ctx = rt.newContext();
    try {
      const r = ctx.evalCode(source, EVALUATOR_MODULE, { type: 'module', compileOnly: true });
      if (r.error) return errorText(ctx, r.error);
      r.value.dispose();
      return null;
    } finally {
      ctx.dispose();
    }
  } finally {
    rt.dispose();
  }
};

// Calls the module's `evaluate` with the arguments and leaves the JSON of its result (awaited) or
// the reason it failed in globals the host reads back as strings.
const CALL = `
Promise.resolve().then(() => {
  if (typeof globalThis.__module.evaluate !== 'function') throw new Error('the code does not export a function evaluate');
  return globalThis.__module.evaluate(JSON.parse(globalThis.__args));
}).then(
  (v) => { globalThis.__result = JSON.stringify(v === undefined ? null : v); },
  (e) => { globalThis.__failure = e instanceof Error ? e.name + ': ' + e.message : 'thrown: ' + String(e); },
);`;

const run = (request: Extract<SandboxRequest, { kind: 'run' }>): SandboxReply => {
  const { id, limits } = request;
  const rt = engine.newRuntime();
  try {
    rt.setMemoryLimit(limits.memoryBytes);
    rt.setMaxStackSize(512 * 1024);
    rt.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + limits.timeoutMs));
    const ctx = rt.newContext();
    try {
      const loaded = ctx.evalCode(request.source, EVALUATOR_MODULE, { type: 'module' });
      if (loaded.error) return { id, ok: false, error: errorText(ctx, loaded.error) };
      // A module evaluates to its namespace, or to a promise of it (top-level await).
      const state = ctx.getPromiseState(loaded.value);
      if (state.type === 'fulfilled' && state.notAPromise) ctx.setProp(ctx.global, '__module', loaded.value);
      loaded.value.dispose();
      if (state.type === 'rejected') return { id, ok: false, error: errorText(ctx, state.error) };
      if (state.type === 'pending') return { id, ok: false, error: 'Error: the module did not finish loading' };
      if (!state.notAPromise) {
        ctx.setProp(ctx.global, '__module', state.value);
        state.value.dispose();
      }
      const args = ctx.newString(request.argsJson);
      ctx.setProp(ctx.global, '__args', args);
      args.dispose();
      const called = ctx.evalCode(CALL, 'call.js');
      if (called.error) return { id, ok: false, error: errorText(ctx, called.error) };
      called.value.dispose();
      const jobs = rt.executePendingJobs();
      if (jobs.error) return { id, ok: false, error: errorText(ctx, jobs.error) };
      const read = (name: string): string | null => {
        const h = ctx.getProp(ctx.global, name);
        const v = ctx.typeof(h) === 'string' ? ctx.getString(h) : null;
        h.dispose();
        return v;
      };
      const failure = read('__failure');
      if (failure !== null) return { id, ok: false, error: failure.slice(0, 2000) };
      const result = read('__result');
      if (result === null) return { id, ok: false, error: 'Error: evaluate did not settle (a promise that never resolves?)' };
      if (result.length > MAX_RESULT_CHARS) return { id, ok: false, error: `Error: the result is over ${MAX_RESULT_CHARS} characters` };
      return { id, ok: true, json: result };
    } finally {
      ctx.dispose();
    }
  } catch (error) {
    // The engine itself refused (out of memory while setting up): a failed evaluation, not a crash.
    return { id, ok: false, error: `InternalError: ${(error as Error).message}` };
  } finally {
    try {
      rt.dispose();
    } catch {
      // A runtime interrupted mid-allocation can fail its own disposal, which aborts the engine:
      // this thread answers, then ends, and the host starts a fresh one for the next evaluation.
      spoiled = true;
    }
  }
};

parentPort!.on('message', (request: SandboxRequest) => {
  if (request.kind === 'parse') {
    let error: string | null;
    try {
      error = parse(request.source);
    } catch (e) {
      error = `InternalError: ${(e as Error).message}`;
    }
    parentPort!.postMessage(
      (error === null ? { id: request.id, ok: true, json: null } : { id: request.id, ok: false, error }) satisfies SandboxReply,
    );
  } else parentPort!.postMessage(run(request));
  if (spoiled) process.exit(1);
});
