import { allProjections } from '../../projections/allProjections.ts';
import { projectionStatus } from '../../projections/projectionStatus.ts';
import { openEventLog } from '../openEventLog.ts';
import type { CommandRun } from './command.ts';

/** `loupe projections status`: position and lag of every read model. */
export const run: CommandRun = async (config) => {
  const log = await openEventLog(config);
  try {
    const head = await log.store.headPosition();
    const rows = await projectionStatus(log.database.pool, allProjections().map((p) => p.name));
    process.stdout.write(`log head ${head.tx}:${head.seq}\n`);
    const width = Math.max(10, ...rows.map((r) => r.name.length));
    process.stdout.write(`${'projection'.padEnd(width)}  ${'position'.padEnd(20)}  ${'lag'.padStart(8)}  updated\n`);
    for (const r of rows) {
      process.stdout.write(`${r.name.padEnd(width)}  ${r.position.padEnd(20)}  ${String(r.lag).padStart(8)}  ${r.updatedAt ?? 'never'}\n`);
    }
    return 0;
  } finally {
    await log.close();
  }
};
