import type { DatabasePool } from 'slonik';
import { indexSpanSearch, spanSearchPending, spanSearchProgress } from './indexSpanSearch.ts';

/**
 * How long the indexer gives way to a busy tracing projection at most. While spans wait to be
 * shown, their words wait (search trails further, the spans list not at all); spans that have
 * waited this long get their words anyway, oldest first, so under a sustained burst search trails
 * by about this much. A burst shorter than this costs the spans list nothing.
 */
export const MAX_DEFER_MS = 30_000;

export type SpanSearchIndexer = {
  start(): void;
  stop(): Promise<void>;
  /** Resolves once every span committed now has its words (tests, and the benchmarks' read-your-writes). */
  catchUp(timeoutMs?: number): Promise<void>;
};

export type SpanSearchIndexerOptions = {
  readonly pool: DatabasePool;
  /** Spans per transaction: on PGlite one step holds its only session (~0.65 ms of CPU a span of 4 KB of text). */
  readonly chunk: number;
  /** True while the tracing projection has events to apply (the lag monitor's latest sample). */
  readonly busy: () => boolean;
  readonly idleMs?: number;
  readonly maxDeferMs?: number;
  readonly onError?: (error: unknown) => void;
};

/**
 * Writes the search words of new spans (`indexSpanSearch`) in the background, behind the tracing
 * projection rather than inside its transaction: what the words cost (four times the rest of a
 * span's row) no longer delays the spans, and the projection has the machine to itself while it
 * is behind. Idle, it looks for new spans every `idleMs`, so a span is found by search about that
 * long after it is listed.
 */
export const createSpanSearchIndexer = (options: SpanSearchIndexerOptions): SpanSearchIndexer => {
  const { pool, chunk, busy, onError } = options;
  const idleMs = options.idleMs ?? 500;
  const maxDeferMs = options.maxDeferMs ?? MAX_DEFER_MS;
  let running = false;
  let done: Promise<void> = Promise.resolve();
  let wake: (() => void) | null = null;
  /** A pause that `stop` cuts short. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      wake = null;
    });

  /**
   * When each span row id was first seen (the newest id at each look, rising): the age of the
   * oldest span without words, without a clock on the rows.
   */
  let seen: { readonly id: number; readonly at: number }[] = [];
  const waitedMs = (indexed: number, newest: number, now: number): number => {
    seen = seen.filter((s) => s.id > indexed);
    if (newest > (seen.at(-1)?.id ?? indexed)) seen.push({ id: newest, at: now });
    return now - (seen[0]?.at ?? now);
  };

  const loop = async () => {
    let backoff = idleMs;
    while (running) {
      try {
        const { indexed, newest } = await spanSearchProgress(pool);
        const waited = waitedMs(indexed, newest, Date.now());
        if (newest <= indexed || (busy() && waited < maxDeferMs)) {
          await pause(idleMs);
          continue;
        }
        await indexSpanSearch(pool, chunk);
        backoff = idleMs;
        // Let requests and the projection have the database (PGlite: one session) between steps.
        await new Promise((resolve) => setImmediate(resolve));
      } catch (error) {
        onError?.(error);
        backoff = Math.min(backoff * 2, 5000);
        await pause(backoff);
      }
    }
  };

  return {
    start() {
      if (running) return;
      running = true;
      done = loop();
    },
    async stop() {
      running = false;
      wake?.();
      await done;
    },
    async catchUp(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (await spanSearchPending(pool)) {
        if (Date.now() > deadline) throw new Error('span search did not catch up in time');
        // Another transaction (this process's loop, or another process) may be indexing: then wait for it.
        const step = await indexSpanSearch(pool, chunk);
        if (step.indexed === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
};
