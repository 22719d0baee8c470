import { START } from '../../domain/eventstore/types.ts';
import { allProjections } from '../../projections/allProjections.ts';
import { readModelOwners } from '../../projections/readModelLease.ts';
import { rebuildProjection, RebuildStoppedError } from '../../projections/rebuildProjection.ts';
import { layOutRebuiltTracing } from '../../projections/tracing/tracingLayout.ts';
import { isTracingPartition, TRACING } from '../../projections/tracing/tracingPartitions.ts';
import { tracingProjection } from '../../projections/tracing/tracingProjection.ts';
import { tracingPartitionCount } from '../config.ts';
import { openEventLog } from '../openEventLog.ts';
import type { CommandRun } from './command.ts';

/**
 * `loupe projections rebuild [NAME]`: replays the log into fresh tables and swaps them in. It runs
 * beside the `loupe serve` processes without taking the read model from its owner: the replay
 * writes only to a scratch schema, and the last stretch and the swap run holding the read model's
 * checkpoint row lock, which the owner's every batch takes too (applyBatch), so the owner waits
 * for the swap and then carries on in the new tables from the rebuilt checkpoint. Nothing is
 * applied twice, whichever process owns it and however many there are.
 */
export const run: CommandRun = async (config, args) => {
  const wanted = args[0];
  const partitions = tracingPartitionCount(config.database);
  // A partitioned read model is rebuilt whole, by its first partition's name (`tracing`).
  const projections = allProjections(partitions).filter((p) => (!wanted || p.name === wanted) && !p.partition?.index);
  if (wanted && isTracingPartition(wanted) && wanted !== TRACING) {
    process.stderr.write(`${wanted} is a partition of the tracing read model: rebuild it whole with "loupe projections rebuild tracing"\n`);
    return 2;
  }
  if (wanted && projections.length === 0) {
    process.stderr.write(
      `unknown projection "${wanted}"; known: ${
        allProjections(partitions)
          .filter((p) => !p.partition?.index)
          .map((p) => p.name)
          .join(', ') || '(none)'
      }\n`,
    );
    return 2;
  }
  const log = await openEventLog(config);
  try {
    const total = (await log.store.backlog(START, { cap: Number.MAX_SAFE_INTEGER })).events;
    const owners =
      log.database.kind === 'postgres'
        ? await readModelOwners(
            log.database.pool,
            projections.map((p) => p.name),
          )
        : new Map<string, string | null>();
    for (const projection of projections) {
      const started = Date.now();
      const owner = owners.get(projection.name);
      if (owner)
        process.stdout.write(
          `${projection.name}: ${owner} keeps serving and applying it until the swap, then continues on the rebuilt tables\n`,
        );
      let last = 0;
      // Replayed in one chain (row ids do not depend on the partitioning), then laid out for every partition.
      const group = projection.partition;
      const rebuilt = rebuildProjection(log.database.pool, log.store, group ? tracingProjection : projection, {
        storeInTransaction: log.storeInTransaction,
        ...(group ? { partitions: { names: group.names.slice(1), afterSwap: (tx, at) => layOutRebuiltTracing(tx, group.count, at) } } : {}),
        onProgress: (p) => {
          if (p.phase === 'replaying' && Date.now() - last < 1000) return;
          last = Date.now();
          const pct = total ? Math.min(100, Math.round((p.applied / total) * 100)) : 100;
          process.stdout.write(`${p.projection}: ${p.phase} ${p.applied}/${total} events (${pct}%)\n`);
        },
      }).catch((error: unknown) => {
        if (!(error instanceof RebuildStoppedError)) throw error;
        process.stderr.write(`loupe projections rebuild: ${error.message}\n`);
        return null;
      });
      const result = await rebuilt;
      if (result === null) return 1;
      const { applied } = result;
      process.stdout.write(`${projection.name}: rebuilt from ${applied} events in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    }
    return 0;
  } finally {
    await log.close();
  }
};
