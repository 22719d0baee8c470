import type { DatabasePool } from 'slonik';
import type { EventStore, Position } from '../domain/eventstore/types.ts';
import { comparePosition, START } from '../domain/eventstore/types.ts';
import type { LiveModel } from './liveModel.ts';
import type { Projection } from './projection.ts';
import { createProcessorLoop, type ProcessorLoop } from './processor/processorLoop.ts';
import { ProjectionStoppedError, ProjectionTimeoutError } from './projectionErrors.ts';
import type { ProjectionStop } from './projectionStop.ts';
import { DEFAULT_BATCH_BYTES } from './readBatch.ts';
import { nameOf, newLane, type RunnerCore, type RunnerLogger } from './readModelLane.ts';
import type { ReadModelLease } from './readModelLease.ts';
import { createFollower, syncOwnership } from './readModelOwnership.ts';
import { load, position, reached, step } from './readModelStep.ts';
import { createReadYourWrites } from './readYourWrites.ts';
import { cleanRebuildLeftovers } from './rebuildLeftovers.ts';

// Where the runner's parts live, for the code that names them here.
export { ProjectionStoppedError, ProjectionTimeoutError } from './projectionErrors.ts';
export { applyBatch, ensureCheckpoints, type SkipRule } from './readModelCheckpoints.ts';
export type { RunnerLogger } from './readModelLane.ts';

export type ProjectionRunnerOptions = {
  readonly store: EventStore;
  readonly pool: DatabasePool;
  readonly projections: readonly Projection[];
  readonly liveModels?: readonly LiveModel[];
  readonly batchSize?: number;
  /** Bytes of event data per batch (at least one event); DEFAULT_BATCH_BYTES unless given, Infinity = count only. */
  readonly batchBytes?: number;
  /** How long to sleep when the log has nothing new (a waitFor wakes the loop early). */
  readonly idleMs?: number;
  /**
   * Longest sleep while the log stays quiet (doubling from `idleMs`); `idleMs` when absent. Only
   * where every append is this process's and wakes the runner (PGlite): another process's events
   * would be seen that much later.
   */
  readonly maxIdleMs?: number;
  /** First and longest pause between attempts on a stopped read model (doubling in between). */
  readonly retryMs?: { readonly first: number; readonly max: number };
  readonly logger?: RunnerLogger;
  /**
   * Several processes on one PostgreSQL database: each read model is applied only by the process
   * holding its lock; the others follow its checkpoint (for waitFor, status and lag) and the lease
   * claims the locks every `claimMs` in case an owner died. Without a lease (PGlite, one-off commands) this
   * process applies every read model, as a single process does.
   */
  readonly lease?: ReadModelLease;
  /** How often a follower tries to take over read models (and the owner checks it still owns them). */
  readonly claimMs?: number;
  /** How this process is named as the owner of its read models (the lease's label when there is one). */
  readonly label?: string;
};

/** One read model as this process sees it. */
export type ProjectionState = {
  readonly name: string;
  readonly position: Position;
  /** Set while it waits at an event it could not apply; the others keep going. */
  readonly stop: ProjectionStop | null;
  /** Whether this process applies it (owns its lock). */
  readonly ownedHere: boolean;
  /** The process that applies it (`loupe <pid>@<host>`), as last seen; null while nobody owns it. */
  readonly owner: string | null;
};

export type ProjectionRunner = {
  /** Loads live models and starts the catch-up loop; resolves once the loop is running. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Resolves when every read model has applied the event at `target` (read-your-writes). Rejects
   * with ProjectionStoppedError as soon as a stopped read model that reads that event's type
   * stands in the way, and with ProjectionTimeoutError after `timeoutMs`.
   */
  waitFor(target: Position, timeoutMs?: number): Promise<void>;
  /** Position up to which this process has applied the log (live models and running read models). */
  position(): Position;
  /** Each read model's position in this process and, if stopped, where and why. */
  projections(): ProjectionState[];
  /** Tries a stopped read model again now instead of at its next scheduled attempt. */
  retry(name: string): void;
  /** Applies everything visible now (except to stopped read models), then returns (CLI and tests). */
  catchUp(): Promise<void>;
  /** Last loop error, if the loop as a whole is failing (database unreachable; for readiness). */
  lastError(): Error | null;
  /** Steps now rather than after the current sleep (this process appended). */
  wake(): void;
};

/**
 * Without the loop running (a one-off command, a test): applies everything visible now. With it:
 * waits for the loop to get there (stepping here too would feed live models twice).
 */
const catchUp = async (core: RunnerCore, loop: ProcessorLoop, runner: ProjectionRunner, follow: () => Promise<void>) => {
  if (loop.running()) {
    const head = await core.store.headPosition();
    if (comparePosition(head, START) > 0)
      await runner.waitFor(head, 60_000).catch((error: unknown) => {
        if (!(error instanceof ProjectionStoppedError)) throw error;
      });
    return;
  }
  await load(core);
  const head = await core.store.headPosition();
  const deadline = Date.now() + 60_000;
  // At least one step: it also tries read models recorded as stopped.
  for (;;) {
    const seen = await step(core, follow);
    if (reached(core, head)) return;
    if (seen > 0) continue;
    // Committed but not yet readable: an older transaction elsewhere holds the horizon back.
    if (Date.now() > deadline) throw new ProjectionTimeoutError(head);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/**
 * Keeps every read model and live model fed from the log, on the shared processor parts: the loop
 * (processor/processorLoop.ts), a lane per read model with its checkpoint and stop row
 * (readModelLane.ts, readModelCheckpoints.ts, applyToLanes.ts: together while they can, alone when
 * one stops), the lease (readModelOwnership.ts: several processes on one database) and
 * read-your-writes (readYourWrites.ts). Each read model has its own checkpoint; a batch goes to
 * all running ones in one transaction.
 */
export const createProjectionRunner = (options: ProjectionRunnerOptions): ProjectionRunner => {
  const { store, pool, lease, logger } = options;
  const retryMs = { first: options.retryMs?.first ?? 1000, max: options.retryMs?.max ?? 30_000 };
  const selfLabel = lease?.label ?? options.label ?? 'this process';
  // One SpansIngested event of 512 LLM spans is ~2.5 MB of JSON: keep a batch's memory bounded,
  // by count and by bytes (20 events of 2,000 spans each would be ~200 MB of JSON, over 1 GB in memory).
  const batchSize = options.batchSize ?? 20;
  const batchBytes = options.batchBytes ?? DEFAULT_BATCH_BYTES;
  const core: RunnerCore = {
    store,
    pool,
    lanes: options.projections.map((p) => newLane(p, !lease, lease ? null : selfLabel, retryMs)),
    liveModels: options.liveModels ?? [],
    logger,
    lease,
    selfLabel,
    read: (from) => store.readAll(from, batchSize, { maxBytes: batchBytes }),
    readPosition: START,
    skips: new Map(),
    settleWaiters: () => rsw.settle(),
    waiting: () => rsw.pending(),
  };
  const rsw = createReadYourWrites(core);
  const follow = createFollower(core);
  let lastError: Error | null = null;
  const loop = createProcessorLoop({
    step: () => step(core, follow),
    idleMs: options.idleMs ?? 100,
    maxIdleMs: options.maxIdleMs,
    // A read-your-writes wait keeps the loop looking every `idleMs`.
    hurry: () => rsw.pending(),
    maxBackoffMs: 5000,
    // Logged when it starts or changes, not on every retry of the same outage.
    onError: (error) => {
      if (lastError?.message !== (error as Error).message) logger?.error({ err: error }, 'projection batch failed; retrying');
      lastError = error as Error;
    },
    onSuccess: (recovered) => {
      if (recovered) logger?.info?.({}, 'projection runner recovered');
      lastError = null;
    },
  });
  const runner: ProjectionRunner = {
    async start() {
      if (loop.running()) return;
      // A rebuild killed earlier (SIGKILL, power loss) left its scratch schema behind: tidy up.
      const dropped = await cleanRebuildLeftovers(pool);
      if (dropped.length > 0) logger?.warn?.({ schemas: dropped }, 'dropped scratch schemas of rebuilds that did not finish');
      await load(core);
      // Claim before serving: a lone process owns everything from its first request on.
      await lease?.start(core.lanes.map(nameOf), options.claimMs ?? 1000, () => loop.wake());
      await syncOwnership(core);
      loop.start();
    },
    async stop() {
      await loop.stop();
      await lease?.release();
      if (lease)
        for (const lane of core.lanes) {
          lane.owned = false;
          lane.owner = null;
        }
    },
    position: () => position(core),
    projections: () =>
      core.lanes.map((l) => ({ name: nameOf(l), position: l.checkpoint, stop: l.stop, ownedHere: l.owned, owner: l.owner })),
    lastError: () => lastError,
    retry(name) {
      const lane = core.lanes.find((l) => nameOf(l) === name);
      if (lane?.stop && lane.owned) {
        lane.backoff.retryNow();
        loop.wake();
      }
    },
    catchUp: () => catchUp(core, loop, runner, follow),
    waitFor: (target, timeoutMs = 5000) => rsw.waitFor(target, timeoutMs, () => loop.wake()),
    wake: () => loop.wake(),
  };
  return runner;
};
