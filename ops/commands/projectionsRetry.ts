import { hostname } from 'node:os';
import { allProjections } from '../../projections/allProjections.ts';
import { createProjectionRunner } from '../../projections/projectionRunner.ts';
import { projectionStatus } from '../../projections/projectionStatus.ts';
import { describeStop } from '../../projections/projectionStop.ts';
import { createReadModelLease, ownerLabel, readModelOwners } from '../../projections/readModelLease.ts';
import { tracingPartitionCount } from '../config.ts';
import { openEventLog } from '../openEventLog.ts';
import type { CommandRun } from './command.ts';

/**
 * `loupe projections retry NAME`: tries a stopped read model again now (after a fix, or a skip
 * decision) and brings it up to the log head in this process. A running server retries stopped
 * read models by itself every 30 s at most and notices the moved checkpoint then.
 *
 * On PostgreSQL it applies only while it holds the read model's lock, like a server would: when a
 * running `loupe serve` owns the read model, that process is the one that applies it (and retries
 * it on its own), so this only says who, and where the read model is (exit 1 while it is stopped).
 */
export const run: CommandRun = async (config, args) => {
  const name = args[0]!;
  const projection = allProjections(tracingPartitionCount(config.database)).find((p) => p.name === name);
  if (!projection) {
    process.stderr.write(
      `unknown projection "${name}"; known: ${allProjections(tracingPartitionCount(config.database))
        .map((p) => p.name)
        .join(', ')}\n`,
    );
    return 2;
  }
  const log = await openEventLog(config);
  const lease =
    log.database.kind === 'postgres'
      ? createReadModelLease(log.database.pool, { label: ownerLabel(process.pid, hostname(), 'loupe-retry') })
      : null;
  try {
    // Claimed on a timer while this runs: a long catch-up must not look like a dead owner.
    if (lease) await lease.start([name], 1000);
    if (lease && !lease.held().has(name)) {
      const failed = lease.lastError();
      if (failed) throw failed;
      const owner = (await readModelOwners(log.database.pool, [name])).get(name) ?? 'another process';
      const [status] = await projectionStatus(log.database.pool, log.store, [name]);
      if (!status?.stop) {
        process.stdout.write(`${name}: running, at ${status?.position ?? '0:0'} (applied by ${owner})\n`);
        return 0;
      }
      process.stderr.write(
        `loupe projections retry: ${name} is stopped (${describeStop(status.stop)}) and applied by ${owner}, which retries it ` +
          `by itself (after 1 s, then at most every 30 s); restart that process to retry at once\n`,
      );
      return 1;
    }
    // Holding the lock, this process is the owner (no lease given: nobody else can take it meanwhile).
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
    await lease?.release();
    await log.close();
  }
};
