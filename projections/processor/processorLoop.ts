/**
 * The loop under every read model runner and reactor lane: run a step; when it saw something, run
 * the next at once; otherwise sleep `idleMs` (a wake cuts the sleep short). A step that throws is
 * tried again after a pause doubling from `idleMs` up to `maxBackoffMs` (the database is down: no
 * point hammering it), and the pause is back to `idleMs` after the first step that succeeds.
 */
export type ProcessorLoop = {
  /** Starts the loop; a second start while it runs does nothing. */
  start(): void;
  /** Ends the loop after the step in progress; resolves when it has ended. */
  stop(): Promise<void>;
  /** Cuts the current sleep short (new work, a waiter, a lock just taken). */
  wake(): void;
  running(): boolean;
};

export type ProcessorLoopOptions = {
  /** One unit of work; returns how much it saw (0: nothing to do, sleep). */
  readonly step: () => Promise<number>;
  readonly idleMs: number;
  /** Longest pause after failing steps; `idleMs` when absent (no growth). */
  readonly maxBackoffMs?: number;
  readonly onError?: (error: unknown) => void;
  /** After a step that succeeded: `recovered` when the previous one threw. */
  readonly onSuccess?: (recovered: boolean) => void;
};

export const createProcessorLoop = (options: ProcessorLoopOptions): ProcessorLoop => {
  const { step, idleMs } = options;
  const maxBackoffMs = options.maxBackoffMs ?? idleMs;
  let running = false;
  let done: Promise<void> = Promise.resolve();
  let wake: (() => void) | null = null;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      wake = null;
    });

  const loop = async () => {
    let pause = idleMs;
    let failing = false;
    while (running) {
      try {
        const seen = await step();
        options.onSuccess?.(failing);
        failing = false;
        pause = idleMs;
        if (seen > 0) continue;
      } catch (error) {
        options.onError?.(error);
        pause = failing ? Math.min(pause * 2, maxBackoffMs) : Math.min(idleMs * 2, maxBackoffMs);
        failing = true;
      }
      if (!running) break;
      await sleep(pause);
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
    wake: () => wake?.(),
    running: () => running,
  };
};
