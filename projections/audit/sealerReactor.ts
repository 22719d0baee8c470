import type { Logger } from 'pino';
import { positionToString } from '../../domain/eventstore/types.ts';
import type { BackgroundJob } from '../reactors/reactor.ts';
import type { Sealer } from './createSealer.ts';
import { latestCheckpoint } from './sealStore.ts';

/** Seal what is new; with `checkpoint`, record the sealed head as a checkpoint too. */
export type SealCommand = { readonly kind: 'seal'; readonly checkpoint: boolean };

export type SealerReactorOptions = {
  readonly sealer: Sealer;
  readonly logger: Pick<Logger, 'info'>;
  /** How often it seals: about the most the seals trail the append by. */
  readonly everyMs?: number;
  /** At most one checkpoint this often while events arrive. */
  readonly checkpointEveryMs?: number;
  /** Batches per run: a long backlog (a first start on a big log) is sealed over several runs, so other reactors get their turn. */
  readonly batchesPerRun?: number;
};

/**
 * The sealer as a background job (it writes seals, appends nothing): it reacts to time, not to events (it reads the log itself, hashing the
 * data in the database rather than reading it through readAll), so it runs in one process among
 * replicas with its errors recorded like any reactor's. Each checkpoint is also logged ("audit
 * checkpoint": position, ordinal, seal): a copy of the chain's head outside the database.
 */
export const sealerReactor = (options: SealerReactorOptions): BackgroundJob<SealCommand> => {
  const checkpointEveryMs = options.checkpointEveryMs ?? 60_000;
  const batchesPerRun = options.batchesPerRun ?? 16;
  return {
    name: 'audit-sealer',
    kind: 'background-job',
    schedule: {
      everyMs: options.everyMs ?? 1_000,
      react: async ({ db, now }) => {
        const mark = await latestCheckpoint(db);
        return [{ kind: 'seal', checkpoint: mark === null || now.getTime() - Date.parse(mark.recordedAt) >= checkpointEveryMs }];
      },
    },
    async issue(command) {
      let checkpoint = command.checkpoint;
      for (let batch = 0; batch < batchesPerRun; batch++) {
        const step = await options.sealer.step(checkpoint ? 'if_sealed' : 'never');
        if (checkpoint && step.sealed > 0 && step.head !== null) {
          checkpoint = false;
          const { head } = step;
          options.logger.info(
            { position: positionToString(head.position), ordinal: head.ordinal.toString(), seal: head.seal.toString('hex') },
            'audit checkpoint',
          );
        }
        if (step.sealed === 0) return;
      }
    },
  };
};
