import type { DatabaseTransactionConnection } from 'slonik';
import type { Migration } from '../domain/eventstore/migration.ts';
import type { StoredEvent } from '../domain/eventstore/types.ts';

/**
 * A read model: the tables it owns, the migrations that create them (unqualified names, so a
 * rebuild can create them in a scratch schema), and how a batch of events changes them.
 * `apply` must be idempotent: applying an event twice leaves the rows as applying it once.
 * It receives every event of the batch; it ignores types it does not know.
 */
export type Projection = {
  readonly name: string;
  readonly tables: readonly string[];
  readonly migrations: readonly Migration[];
  readonly apply: (tx: DatabaseTransactionConnection, events: readonly StoredEvent[]) => Promise<void>;
  /**
   * The event types `apply` reads, declared by the read model itself (every read model of
   * `allProjections.ts` does; test doubles may leave it out: then any). Only used while this read
   * model is stopped: a read-your-writes wait for an event of another type does not fail because
   * of it. Missing a type here never skips an event.
   */
  readonly eventTypes?: readonly string[];
};
