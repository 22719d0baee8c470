import type { DatabasePool } from 'slonik';
import type { EventStore, Position, StoredEvent } from '../domain/eventstore/types.ts';
import { START } from '../domain/eventstore/types.ts';
import type { LiveModel } from './liveModel.ts';
import { createRetryBackoff, type RetryBackoff } from './processor/retryBackoff.ts';
import type { Projection } from './projection.ts';
import type { ProjectionStop } from './projectionStop.ts';
import type { SkipRule } from './readModelCheckpoints.ts';
import type { ReadModelLease } from './readModelLease.ts';

export type RunnerLogger = {
  error: (obj: object, msg: string) => void;
  warn?: (obj: object, msg: string) => void;
  info?: (obj: object, msg: string) => void;
};

/** One read model as the runner drives it. */
export type Lane = {
  readonly projection: Projection;
  /** This process applies it; otherwise another process does, and `checkpoint` and `stop` are read from its row. */
  owned: boolean;
  /** Who applies it, as last seen (this process's label when owned). */
  owner: string | null;
  /** Everything up to here is applied (as far as this process knows; the database row is the truth). */
  checkpoint: Position;
  stop: ProjectionStop | null;
  /** When a stopped read model is tried again. */
  readonly backoff: RetryBackoff;
};

/**
 * What the parts of the read model runner share (readModelStep.ts, applyToLanes.ts,
 * readModelOwnership.ts, readYourWrites.ts): the lanes and where the main reader is.
 */
export type RunnerCore = {
  readonly store: EventStore;
  readonly pool: DatabasePool;
  readonly lanes: readonly Lane[];
  readonly liveModels: readonly LiveModel[];
  readonly logger?: RunnerLogger;
  readonly lease?: ReadModelLease;
  readonly selfLabel: string;
  /** One batch of the log after `from`, bounded by count and bytes. */
  readonly read: (from: Position) => Promise<StoredEvent[]>;
  /** Where the main reader is: the live models and the pack of running read models have seen the log up to here. */
  readPosition: Position;
  /** Operators' skip decisions: read model → event ids. */
  skips: Map<string, Set<string>>;
  /** Read-your-writes waits are judged again (readYourWrites.ts sets it). */
  settleWaiters: () => void;
  /** Whether a read-your-writes wait is pending (followers then read the owners' checkpoints at every step). */
  waiting: () => boolean;
};

export const newLane = (projection: Projection, owned: boolean, owner: string | null, retryMs: { first: number; max: number }): Lane => ({
  projection,
  owned,
  owner,
  checkpoint: START,
  stop: null,
  backoff: createRetryBackoff(retryMs),
});

export const nameOf = (l: Lane): string => l.projection.name;

export const skipRuleOf =
  (core: RunnerCore): SkipRule =>
  (name, event) =>
    core.skips.get(name)?.has(event.id) ?? false;
