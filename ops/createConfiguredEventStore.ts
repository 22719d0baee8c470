import type { CommonQueryMethods, DatabasePool, DatabaseTransactionConnection } from 'slonik';
import { createPostgresSealInputs } from '../domain/eventstore/postgresSealInputs.ts';
import type { SealInputSource } from '../domain/audit/sealInputSource.ts';
import { createStoreSealInputs } from '../domain/audit/storeSealInputs.ts';
import { createKurrentEventStore } from '../domain/eventstore/kurrentEventStore.ts';
import { createPostgresEventStore } from '../domain/eventstore/postgresEventStore.ts';
import type { EventStore } from '../domain/eventstore/types.ts';
import type { Config } from './config.ts';

export type ConfiguredEventStore = {
  readonly store: EventStore;
  /**
   * The same log read inside a database transaction (a rebuild's last stretch under its locks);
   * only when the log lives in that database. EventStoreDB's order never changes behind a reader,
   * so a rebuild reads it as is.
   */
  readonly storeInTransaction?: (tx: DatabaseTransactionConnection) => EventStore;
  /** Where the log lives, for logs and /readyz (never with credentials). */
  readonly description: string;
  readonly kind: 'sql' | 'eventstoredb';
  /** What the sealer and `loupe audit verify` read of the log (the SQL one hashes in the database). */
  readonly sealInputs: (db: CommonQueryMethods) => SealInputSource;
  readonly close: () => Promise<void>;
};

/**
 * The event log: in EventStoreDB / KurrentDB when SERVICE_EVENTSTORE_URL is set (read models and
 * their checkpoints stay in the SQL database), otherwise in the SQL database's `events` table.
 */
export const createConfiguredEventStore = (config: Config, pool: DatabasePool): ConfiguredEventStore => {
  const url = config.database.eventStoreUrl;
  if (url) {
    const kurrent = createKurrentEventStore(url);
    return {
      store: kurrent.store,
      description: kurrent.description,
      kind: 'eventstoredb',
      sealInputs: () => createStoreSealInputs(kurrent.store),
      close: kurrent.close,
    };
  }
  return {
    store: createPostgresEventStore(pool),
    storeInTransaction: (tx) => createPostgresEventStore(tx),
    description: 'the SQL database (events table)',
    kind: 'sql',
    sealInputs: createPostgresSealInputs,
    close: async () => undefined,
  };
};
