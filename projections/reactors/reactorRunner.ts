import type { DatabasePool } from 'slonik';
import type { EventStore, Position } from '../../domain/eventstore/types.ts';
import type { ReadModelLease } from '../readModelLease.ts';
import type { AnyReactor } from './reactor.ts';
import { ensureReactorCheckpoints } from './reactorCheckpoint.ts';
import { createReactorLane, type ReactorLogger, type ReactorState } from './reactorLane.ts';

export type { ReactorLogger, ReactorState } from './reactorLane.ts';

export type ReactorRunnerOptions = {
  readonly store: EventStore;
  readonly pool: DatabasePool;
  readonly reactors: readonly AnyReactor[];
  /** For reactors that react after the read models (`afterReadModels`). */
  readonly readModels?: { waitFor(target: Position, timeoutMs?: number): Promise<void> };
  /** Several processes on one PostgreSQL database: a reactor runs only where its lock (`reactor:<name>`) is held. */
  readonly lease?: ReadModelLease;
  readonly claimMs?: number;
  readonly idleMs?: number;
  /** Longest sleep of an idle lane (doubling from `idleMs`); as ProjectionRunnerOptions.maxIdleMs. */
  readonly maxIdleMs?: number;
  readonly batchSize?: number;
  readonly now?: () => Date;
  readonly logger?: ReactorLogger;
};

export type ReactorRunner = {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Runs every reactor this process owns until it has reacted to everything visible now (CLI, tests). */
  catchUp(): Promise<void>;
  /** Runs the named reactor's schedule now (an operator's "apply the policies now"; tests). */
  runSchedule(name: string): Promise<void>;
  reactors(): ReactorState[];
  /** Every lane steps now rather than after its sleep (this process appended). */
  wake(): void;
};

/**
 * Waits until a reader can see the event at `position` (readAll shows events only below the
 * oldest running transaction, and on a shared server another database's transaction counts).
 */
export const untilVisible = async (store: EventStore, position: Position, timeoutMs = 60_000): Promise<void> => {
  if (position.seq === 0n) return;
  for (const deadline = Date.now() + timeoutMs; ; ) {
    const [event] = await store.readAll({ tx: position.tx, seq: position.seq - 1n }, 1);
    if (event) return;
    if (Date.now() > deadline) throw new Error(`event ${position.tx}:${position.seq} never became readable`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** The lock (and `loupe projections status`) name of a reactor: kept apart from read model names. */
export const reactorLockName = (name: string): string => `reactor:${name}`;

/**
 * Runs reactors (projections/reactors/reactor.ts), each on a lane of its own (reactorLane.ts):
 * for each reactor this process owns, its lane reads the events after its checkpoint (only its
 * types), lets it decide, issues the commands, then moves the checkpoint with a compare-and-set (a
 * second owner that got there first wins, nothing moves back); and runs its schedule when due. A
 * failing reactor records its error in its checkpoint row and is tried again after a growing
 * pause; a slow or failing one holds up no other.
 */
export const createReactorRunner = (options: ReactorRunnerOptions): ReactorRunner => {
  const { store, pool, reactors, lease } = options;
  const names = reactors.map((r) => r.name);
  if (new Set(names).size !== names.length) throw new Error(`reactor names must be unique: ${names.join(', ')}`);
  const lanes = reactors.map((reactor) =>
    createReactorLane({
      reactor,
      store,
      pool,
      owns: () => !lease || lease.held().has(reactorLockName(reactor.name)),
      readModels: options.readModels,
      idleMs: options.idleMs ?? 250,
      maxIdleMs: options.maxIdleMs,
      batchSize: options.batchSize ?? 100,
      now: options.now ?? (() => new Date()),
      logger: options.logger,
    }),
  );
  let running = false;
  const wakeAll = () => {
    for (const lane of lanes) lane.wake();
  };

  return {
    async start() {
      if (running || reactors.length === 0) return;
      await ensureReactorCheckpoints(pool, names);
      await lease?.start(names.map(reactorLockName), options.claimMs ?? 1000, wakeAll);
      running = true;
      for (const lane of lanes) lane.start();
    },
    async stop() {
      running = false;
      await Promise.all(lanes.map((lane) => lane.stop()));
      await lease?.release();
    },
    async catchUp() {
      await ensureReactorCheckpoints(pool, names);
      await untilVisible(store, await store.headPosition());
      if (lease && !running) await lease.claim(names.map(reactorLockName));
      for (const lane of lanes) {
        if (!lane.state().ownedHere) continue;
        lane.clearBackoff();
        while ((await lane.reactOnce()) > 0) {}
      }
    },
    async runSchedule(name) {
      const lane = lanes.find((l) => l.name === name);
      if (!lane) throw new Error(`no reactor named "${name}"`);
      await ensureReactorCheckpoints(pool, names);
      await lane.scheduleOnce(true);
    },
    reactors: () => lanes.map((lane) => lane.state()),
    wake: wakeAll,
  };
};
