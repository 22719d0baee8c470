import type { CommonQueryMethods, DatabaseTransactionConnection } from 'slonik';
import type { SealInputSource } from '../domain/audit/sealInputSource.ts';
import type { EventStore } from '../domain/eventstore/types.ts';
import { migrate } from '../projections/migrate.ts';
import type { Config } from './config.ts';
import { createConfiguredEventStore } from './createConfiguredEventStore.ts';
import { allMigrations } from './database/allMigrations.ts';
import { openConfiguredDatabase } from './database/openConfiguredDatabase.ts';
import type { Database } from './database/openDatabase.ts';

export type EventLog = {
  readonly database: Database;
  readonly store: EventStore;
  readonly storeInTransaction?: (tx: DatabaseTransactionConnection) => EventStore;
  readonly kind: 'sql' | 'eventstoredb';
  /** What the audit chain reads of the log. */
  readonly sealInputs: (db: CommonQueryMethods) => SealInputSource;
  readonly close: () => Promise<void>;
};

/** For CLI commands: the configured database, migrated, and the configured event store. */
export const openEventLog = async (config: Config): Promise<EventLog> => {
  const database = await openConfiguredDatabase(config);
  let configured: ReturnType<typeof createConfiguredEventStore> | undefined;
  try {
    configured = createConfiguredEventStore(config, database.pool);
    await migrate(database.pool, allMigrations());
  } catch (error) {
    await configured?.close();
    await database.close();
    throw error;
  }
  return {
    database,
    store: configured.store,
    storeInTransaction: configured.storeInTransaction,
    kind: configured.kind,
    sealInputs: configured.sealInputs,
    close: async () => {
      await configured.close();
      await database.close();
    },
  };
};
