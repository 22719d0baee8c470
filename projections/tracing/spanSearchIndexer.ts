import type { DatabasePool } from 'slonik';
import { createProcessorLoop } from '../processor/processorLoop.ts';
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
 * is behind. It is a lane on the processor's loop (processor/processorLoop.ts: sleep when idle,
 * backoff after failures); idle, it looks for new spans every `idleMs`, so a span is found by
 * search about that long after it is listed.
 */
export const createSpanSearchIndexer = (options: SpanSearchIndexerOptions): SpanSearchIndexer => {
  const { pool, chunk, busy } = options;
  const maxDeferMs = options.maxDeferMs ?? MAX_DEFER_MS;

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

  /** One step of the lane: the spans it gave words to (0: nothing to do, deferred, or another process indexing). */
  const step = async (): Promise<number> => {
    const { indexed, newest } = await spanSearchProgress(pool);
    const waited = waitedMs(indexed, newest, Date.now());
    if (newest <= indexed || (busy() && waited < maxDeferMs)) return 0;
    const done = await indexSpanSearch(pool, chunk);
    // Let requests and the projection have the database (PGlite: one session) between steps.
    await new Promise((resolve) => setImmediate(resolve));
    return done.indexed;
  };
  const loop = createProcessorLoop({ step, idleMs: options.idleMs ?? 500, maxBackoffMs: 5000, onError: options.onError });

  return {
    start: () => loop.start(),
    stop: () => loop.stop(),
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
