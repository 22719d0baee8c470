import type { Logger } from 'pino';
import { positionToString } from '../../domain/eventstore/types.ts';
import { SealerRefusedError, type Sealer } from './createSealer.ts';

export type SealingOptions = {
  readonly sealer: Sealer;
  readonly logger: Logger;
  /** How long the sealer rests when it has caught up: the most it trails the append by when idle. */
  readonly intervalMs?: number;
  /** At most one checkpoint this often while events arrive. */
  readonly checkpointEveryMs?: number;
};

/**
 * The sealer running in the background, trailing the append: it seals whatever is new, rests,
 * and again. Each checkpoint is also logged ("audit checkpoint", position and seal), so a copy of
 * the chain's head lives outside the database, where log shipping keeps it.
 */
export const startSealing = (options: SealingOptions): { stop(): Promise<void> } => {
  const intervalMs = options.intervalMs ?? 1_000;
  const checkpointEveryMs = options.checkpointEveryMs ?? 60_000;
  let lastCheckpoint = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const round = async () => {
    try {
      for (;;) {
        const due = Date.now() - lastCheckpoint >= checkpointEveryMs;
        const step = await options.sealer.step(due ? 'if_sealed' : 'never');
        if (due && step.sealed > 0 && step.head !== null) {
          lastCheckpoint = Date.now();
          options.logger.info(
            { position: positionToString(step.head.position), ordinal: step.head.ordinal.toString(), seal: step.head.seal.toString('hex') },
            'audit checkpoint',
          );
        }
        if (step.sealed === 0 || stopped) return;
      }
    } catch (error) {
      if (error instanceof SealerRefusedError) {
        options.logger.error(error.message);
        stopped = true;
        return;
      }
      options.logger.warn({ err: error }, 'audit sealing failed; retrying');
    }
  };
  const tick = () => {
    running = round().then(() => {
      if (!stopped) timer = setTimeout(tick, intervalMs);
    });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
};
