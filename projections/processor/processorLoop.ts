/**
 * The loop under every read model runner and reactor lane: run a step; when it saw something, run
 * the next at once; otherwise sleep `idleMs`, doubling while steps keep seeing nothing up to
 * `maxIdleMs` (an idle server stops asking its database ten times a second; a wake, which the
 * composition root gives every append of this process, cuts the sleep short and starts again at
 * `idleMs`). A step that throws is tried again after a pause doubling from `idleMs` up to
 * `maxBackoffMs` (the database is down: no point hammering it), and the pause is back to `idleMs`
 * after the first step that succeeds.
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
  /** Longest sleep after steps that saw nothing; `idleMs` when absent (no growth). */
  readonly maxIdleMs?: number;
  /** While true, an idle sleep stays at `idleMs` (someone waits for what the next step may see). */
  readonly hurry?: () => boolean;
  /** Longest pause after failing steps; `idleMs` when absent (no growth). */
  readonly maxBackoffMs?: number;
  readonly onError?: (error: unknown) => void;
  /** After a step that succeeded: `recovered` when the previous one threw. */
  readonly onSuccess?: (recovered: boolean) => void;
};

export const createProcessorLoop = (options: ProcessorLoopOptions): ProcessorLoop => {
  const { step, idleMs } = options;
  const maxBackoffMs = options.maxBackoffMs ?? idleMs;
  const maxIdleMs = options.maxIdleMs ?? idleMs;
  let running = false;
  /** The next sleep after a step that saw nothing. */
  let idle = idleMs;
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
        if (seen > 0) {
          idle = idleMs;
          continue;
        }
        pause = options.hurry?.() ? idleMs : idle;
        idle = Math.min(idle * 2, maxIdleMs);
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
    wake: () => {
      idle = idleMs;
      wake?.();
    },
    running: () => running,
  };
};
