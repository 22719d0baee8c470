import { sql } from 'slonik';
import { z } from 'zod';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { allProjections } from '../../projections/allProjections.ts';
import { rebuildProjection, RebuildStoppedError } from '../../projections/rebuildProjection.ts';
import { openEventLog } from '../openEventLog.ts';
import type { CommandRun } from './command.ts';

/** `loupe projections rebuild [NAME]`: replays the log into fresh tables and swaps them in. */
export const run: CommandRun = async (config, args) => {
  const wanted = args[0];
  const projections = allProjections().filter((p) => !wanted || p.name === wanted);
  if (wanted && projections.length === 0) {
    process.stderr.write(
      `unknown projection "${wanted}"; known: ${
        allProjections()
          .map((p) => p.name)
          .join(', ') || '(none)'
      }\n`,
    );
    return 2;
  }
  const log = await openEventLog(config);
  try {
    const total = await log.database.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM events`);
    for (const projection of projections) {
      const started = Date.now();
      let last = 0;
      const rebuilt = rebuildProjection(log.database.pool, log.store, projection, {
        storeInTransaction: (tx) => createPostgresEventStore(tx),
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
