import { parseArgs } from 'node:util';
import { positionFromString } from '../../domain/eventstore/types.ts';
import { allProjections } from '../../projections/allProjections.ts';
import { recordSkipDecision, SkipRefusedError } from '../../projections/recordSkipDecision.ts';
import { tracingPartitionCount } from '../config.ts';
import { openEventLog } from '../openEventLog.ts';
import type { CommandRun } from './command.ts';

/**
 * `loupe projections skip NAME --event POSITION [--reason TEXT]`: the way out when a read model is
 * stopped at an event it can never apply. The decision goes into the event log (who, when, why),
 * so the running runner moves on and every later rebuild leaves out the same event.
 */
export const run: CommandRun = async (config, args) => {
  const { values, positionals } = parseArgs({
    args,
    options: { event: { type: 'string' }, reason: { type: 'string' } },
    allowPositionals: true,
  });
  const name = positionals[0]!;
  if (!allProjections(tracingPartitionCount(config.database)).some((p) => p.name === name)) {
    process.stderr.write(
      `unknown projection "${name}"; known: ${allProjections(tracingPartitionCount(config.database))
        .map((p) => p.name)
        .join(', ')}\n`,
    );
    return 2;
  }
  const position = positionFromString(values.event!);
  const reason = values.reason?.trim().slice(0, 500) || null;
  const log = await openEventLog(config);
  try {
    const { event, alreadyRecorded } = await recordSkipDecision(log.store, log.database.pool, {
      projection: name,
      position,
      reason,
      actor: 'operator',
    });
    const what = `event ${values.event} (${event.type} in stream ${event.stream}, id ${event.id})`;
    process.stdout.write(
      alreadyRecorded
        ? `${name} already skips ${what}; nothing recorded\n`
        : `recorded: ${name} skips ${what}. A running server moves on within seconds; rebuilds skip it too.\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof SkipRefusedError)) throw error;
    process.stderr.write(`loupe projections skip: ${error.message}; nothing recorded\n`);
    return 1;
  } finally {
    await log.close();
  }
};
