import { startEventStoreDb, type EventStoreDbStandIn } from '../peers/eventStoreDb.ts';

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
