import type { DatabaseTransactionConnection } from 'slonik';
import type { Migration } from '../domain/eventstore/migration.ts';
import type { StoredEvent } from '../domain/eventstore/types.ts';

/**
 * A read model: the tables it owns, the migrations that create them (unqualified names, so a
 * rebuild can create them in a scratch schema), and how a batch of events changes them.
 * `apply` must be idempotent: applying an event twice leaves the rows as applying it once.
 * It receives every event of the batch; it ignores types it does not know.
 */
/**
 * One of several projectors sharing one set of tables (`tracing`, `tracing.1`, …): each applies
 * its part of every event with its own checkpoint, lease and stop. Events `barrier` picks change
 * what every part reads (projects, prices, deletions): partition 0 applies them alone, once every
 * partition has applied everything before them, and no partition goes past one before partition 0
 * has applied it (readModelPartitions.ts).
 */
export type ProjectionPartition = {
  readonly group: string;
  readonly index: number;
  readonly count: number;
  /** Every partition's read model name, by index (the group's checkpoint rows). */
  readonly names: readonly string[];
  readonly barrier: (event: StoredEvent) => boolean;
};

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
  /** Set when this projector is one partition of a group (tracingPartitions.ts). */
  readonly partition?: ProjectionPartition;
};
