import type { DatabasePool } from 'slonik';
import { createPostgresEventStore } from '../domain/eventstore/postgresEventStore.ts';
import type { EventStore } from '../domain/eventstore/types.ts';
import type { Config } from './config.ts';

export class UnsupportedConfigurationError extends Error {}

/**
 * The event log lives in the SQL database. An EventStoreDB URL is refused loudly rather than
 * ignored: silently writing the log somewhere else than the operator asked would be worse.
 */
export const createConfiguredEventStore = (config: Config, pool: DatabasePool): EventStore => {
  if (config.database.eventStoreUrl) {
    throw new UnsupportedConfigurationError(
      'SERVICE_EVENTSTORE_URL: the EventStoreDB adapter is not available in this version; unset it to keep the event log in the SQL database',
    );
  }
  return createPostgresEventStore(pool);
};
