import type { Logger } from 'pino';

/**
 * Runs `task` every `everyMs` (and once after `firstAfterMs` when given), never two at once:
 * a run still going when the next is due lets that one pass. A failure is logged as `failure` and
 * the next run goes ahead. The timers do not keep the process alive. Returns the stop function.
 * For the server's own database upkeep (ANALYZE, PGlite's CHECKPOINT).
 */
export const repeatWithoutOverlap = (
  task: () => Promise<unknown>,
  { everyMs, firstAfterMs, logger, failure }: { everyMs: number; firstAfterMs?: number; logger: Logger; failure: string },
): (() => void) => {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      await task();
    } catch (error) {
      logger.warn({ err: error }, failure);
    } finally {
      running = false;
    }
  };
  const first = firstAfterMs === undefined ? undefined : setTimeout(() => void run(), firstAfterMs);
  const timer = setInterval(() => void run(), everyMs);
  first?.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
};
