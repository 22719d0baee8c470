import { allProjections } from '../../projections/allProjections.ts';
import { createProjectionRunner } from '../../projections/projectionRunner.ts';
import { describeStop } from '../../projections/projectionStop.ts';
import { openEventLog } from '../openEventLog.ts';
import type { CommandRun } from './command.ts';

/**
 * `loupe projections retry NAME`: tries a stopped read model again now (after a fix, or a skip
 * decision) and brings it up to the log head in this process. A running server retries stopped
 * read models by itself every 30 s at most and notices the moved checkpoint then.
 */
export const run: CommandRun = async (config, args) => {
  const name = args[0]!;
  const projection = allProjections().find((p) => p.name === name);
  if (!projection) {
    process.stderr.write(
      `unknown projection "${name}"; known: ${allProjections()
        .map((p) => p.name)
        .join(', ')}\n`,
    );
    return 2;
  }
  const log = await openEventLog(config);
  try {
    const runner = createProjectionRunner({ store: log.store, pool: log.database.pool, projections: [projection], batchSize: 50 });
    await runner.catchUp();
    const [state] = runner.projections();
    if (state?.stop) {
      process.stderr.write(`loupe projections retry: still failing: ${describeStop(state.stop)}\n`);
      return 1;
    }
    process.stdout.write(`${name}: running, at ${state!.position.tx}:${state!.position.seq}\n`);
    return 0;
  } finally {
    await log.close();
  }
};
