import type { EventStore } from '../domain/eventstore/types.ts';
import { migrate } from '../projections/migrate.ts';
import type { Config } from './config.ts';
import { createConfiguredEventStore } from './createConfiguredEventStore.ts';
import { allMigrations } from './database/allMigrations.ts';
import { openConfiguredDatabase } from './database/openConfiguredDatabase.ts';
import type { Database } from './database/openDatabase.ts';

/** For CLI commands: the configured database, migrated, and the event store on it. */
export const openEventLog = async (config: Config): Promise<{ database: Database; store: EventStore; close: () => Promise<void> }> => {
  const database = await openConfiguredDatabase(config);
  let store: EventStore;
  try {
    store = createConfiguredEventStore(config, database.pool);
    await migrate(database.pool, allMigrations());
  } catch (error) {
    await database.close();
    throw error;
  }
  return { database, store, close: () => database.close() };
};
