import { SingleBar } from 'cli-progress';
import { parseArgs } from 'node:util';
import { createKurrentEventStore, describeKurrentUrl } from '../../domain/eventstore/kurrentEventStore.ts';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import type { EventStore } from '../../domain/eventstore/types.ts';
import { START } from '../../domain/eventstore/types.ts';
import { migrate } from '../../projections/migrate.ts';
import { copyEventLog, TargetNotEmptyError } from '../copyEventLog.ts';
import { allMigrations } from '../database/allMigrations.ts';
import { openDatabase } from '../database/openDatabase.ts';
import { openEventLog } from '../openEventLog.ts';
import type { CommandRun } from './command.ts';

const EVENTSTORE_SCHEME = /^(esdb|kurrentdb|kdb)(\+discover)?:\/\//;
const POSTGRES_SCHEME = /^postgres(ql)?:\/\//;

/** The log `--to` names: an EventStoreDB connection string, or a PostgreSQL database (migrated, its `events` table). */
const openTarget = async (url: string): Promise<{ store: EventStore; description: string; close: () => Promise<void> }> => {
  if (EVENTSTORE_SCHEME.test(url)) {
    const kurrent = createKurrentEventStore(url);
    return { store: kurrent.store, description: kurrent.description, close: kurrent.close };
  }
  const database = await openDatabase({ url, maximumPoolSize: 4 });
  try {
    await migrate(database.pool, allMigrations());
  } catch (error) {
    await database.close();
    throw error;
  }
  return { store: createPostgresEventStore(database.pool), description: database.description, close: () => database.close() };
};

/**
 * `loupe events copy --to URL`: copies the configured log (the SQL database's, or EventStoreDB's
 * when SERVICE_EVENTSTORE_URL is set) into an empty one — EventStoreDB (`kurrentdb://`, `esdb://`)
 * or PostgreSQL (`postgres://`) — with a progress bar on stderr. A server started on the copy
 * rebuilds the same read models from it.
 */
export const run: CommandRun = async (config, args) => {
  const to = parseArgs({ args, options: { to: { type: 'string' } } }).values.to ?? '';
  if (!EVENTSTORE_SCHEME.test(to) && !POSTGRES_SCHEME.test(to)) {
    process.stderr.write(
      'loupe events copy: --to must be an EventStoreDB connection string (kurrentdb://, esdb://, kdb://) or a PostgreSQL URL (postgres://)\n',
    );
    return 2;
  }
  const log = await openEventLog(config);
  let target: Awaited<ReturnType<typeof openTarget>> | undefined;
  try {
    target = await openTarget(to);
    const shown = EVENTSTORE_SCHEME.test(to) ? describeKurrentUrl(to) : target.description;
    const total = (await log.store.backlog(START, { cap: Number.MAX_SAFE_INTEGER })).events;
    const bar = new SingleBar({
      format: 'copying {bar} {value}/{total} events | {rate} events/s',
      stream: process.stderr,
      hideCursor: true,
    });
    const started = performance.now();
    bar.start(total, 0, { rate: 0 });
    const { copied, appends } = await copyEventLog(log.store, target.store, (n) => {
      // The total is an estimate on EventStoreDB: never show more copied than expected.
      if (n > bar.getTotal()) bar.setTotal(n);
      bar.update(n, { rate: Math.round(n / ((performance.now() - started) / 1000)) });
    });
    bar.stop();
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `copied ${copied} events in ${appends} appends to ${shown} in ${seconds.toFixed(1)} s (${Math.round(copied / Math.max(seconds, 0.001))} events/s)\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof TargetNotEmptyError) {
      process.stderr.write(`loupe events copy: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await target?.close();
    await log.close();
  }
};
