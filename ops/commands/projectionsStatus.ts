import { allProjections } from '../../projections/allProjections.ts';
import { positionFromString } from '../../domain/eventstore/types.ts';
import { lagAfter } from '../../projections/projectionLag.ts';
import { projectionStatus } from '../../projections/projectionStatus.ts';
import { readModelOwners } from '../../projections/readModelLease.ts';
import { tracingPartitionCount } from '../config.ts';
import { openEventLog } from '../openEventLog.ts';
import type { CommandRun } from './command.ts';

/**
 * `loupe projections status`: position and lag of every read model, where any stopped and why,
 * and (PostgreSQL) which `loupe serve` process applies it: `loupe <pid>@<host>`, or "none" while no
 * process holds its lock. On embedded PGlite the one serving process applies everything ("-").
 */
export const run: CommandRun = async (config) => {
  const log = await openEventLog(config);
  try {
    const head = await log.store.headPosition();
    const rows = await projectionStatus(
      log.database.pool,
      log.store,
      allProjections(tracingPartitionCount(config.database)).map((p) => p.name),
    );
    const owners =
      log.database.kind === 'postgres'
        ? await readModelOwners(
            log.database.pool,
            rows.map((r) => r.name),
          )
        : null;
    process.stdout.write(`log head ${head.tx}:${head.seq}\n`);
    const width = Math.max(10, ...rows.map((r) => r.name.length));
    process.stdout.write(
      `${'projection'.padEnd(width)}  ${'position'.padEnd(20)}  ${'lag'.padStart(8)}  ${'behind'.padStart(9)}  ${'updated'.padEnd(24)}  owner\n`,
    );
    for (const r of rows) {
      // How long users have not seen the oldest event it has not applied (0 s when caught up).
      const { seconds } = await lagAfter(log.store, positionFromString(r.position));
      const behind = `${seconds.toFixed(1)} s`;
      const owner = owners ? (owners.get(r.name) ?? 'none') : '-';
      process.stdout.write(
        `${r.name.padEnd(width)}  ${r.position.padEnd(20)}  ${String(r.lag).padStart(8)}  ${behind.padStart(9)}  ${(r.updatedAt ?? 'never').padEnd(24)}  ${owner}\n`,
      );
    }
    const stopped = rows.flatMap((r) => (r.stop ? [r.stop] : []));
    for (const s of stopped) {
      process.stdout.write(
        `\n${s.projection} STOPPED since ${s.since} at event ${s.event.position} (${s.event.type} in stream ${s.event.stream}, id ${s.event.id}):\n` +
          `  ${s.error}\n` +
          `  fix the cause and run "loupe projections retry ${s.projection}", or, if the event can never apply,\n` +
          `  "loupe projections skip ${s.projection} --event ${s.event.position} --reason '...'" (see README, "When a projection stops")\n`,
      );
    }
    return stopped.length > 0 ? 3 : 0;
  } finally {
    await log.close();
  }
};
