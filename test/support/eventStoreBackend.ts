import type { DatabaseTransactionConnection } from 'slonik';
import { createKurrentEventStore } from '../../domain/eventstore/kurrentEventStore.ts';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import type { EventStore } from '../../domain/eventstore/types.ts';
import { startEventStoreDb, type EventStoreDbStandIn } from '../peers/eventStoreDb.ts';
import type { TestDatabase } from './database.ts';

/**
 * Which log the test servers use. `LOUPE_TEST_EVENTSTORE=standin` (CI's third run) puts every test
 * server's log in EventStoreDB through the adapter, against a stand-in started for that server's
 * database (test/peers/eventStoreDb.ts); the read models stay on the selected SQL backend.
 * Unset: the log lives in the SQL database, as by default.
 */
export const eventStoreStandInSelected = (): boolean => process.env.LOUPE_TEST_EVENTSTORE === 'standin';

/**
 * The stand-in's append limit in the tests: the size a deployment configures on the server
 * (README, "EventStoreDB"), since one OTLP request is one append.
 */
export const TEST_MAX_APPEND_SIZE = 16 * 1024 * 1024;

/** A fresh stand-in for one test database, or null when the log stays in SQL. */
export const freshEventStore = async (): Promise<EventStoreDbStandIn | null> =>
  eventStoreStandInSelected() ? startEventStoreDb({ maxAppendSize: TEST_MAX_APPEND_SIZE }) : null;

/**
 * The log of a test database as a server on it would use it: EventStoreDB through the adapter when
 * the database carries a stand-in's URL, else the database's own `events` table (and the same log
 * read inside a transaction, for rebuilds).
 */
export const eventLogOf = (
  db: TestDatabase,
): { store: EventStore; storeInTransaction?: (tx: DatabaseTransactionConnection) => EventStore; close: () => Promise<void> } => {
  if (db.eventStoreUrl) {
    const kurrent = createKurrentEventStore(db.eventStoreUrl);
    return { store: kurrent.store, close: kurrent.close };
  }
  return {
    store: createPostgresEventStore(db.pool),
    storeInTransaction: (tx) => createPostgresEventStore(tx),
    close: async () => undefined,
  };
};
