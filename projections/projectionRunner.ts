import { sql, type DatabasePool, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { EventStore, Position, StoredEvent } from '../domain/eventstore/types.ts';
import { comparePosition, START } from '../domain/eventstore/types.ts';
import type { LiveModel } from './liveModel.ts';
import type { Projection } from './projection.ts';

export class ProjectionTimeoutError extends Error {
  readonly code = 'projection_timeout';
  constructor(target: Position) {
    super(`read models did not reach position ${target.tx}:${target.seq} in time`);
  }
}

export type RunnerLogger = { error: (obj: object, msg: string) => void };

export type ProjectionRunnerOptions = {
  readonly store: EventStore;
  readonly pool: DatabasePool;
  readonly projections: readonly Projection[];
  readonly liveModels?: readonly LiveModel[];
  readonly batchSize?: number;
  /** How long to sleep when the log has nothing new (a waitFor wakes the loop early). */
  readonly idleMs?: number;
  readonly logger?: RunnerLogger;
};

export type ProjectionRunner = {
  /** Loads live models and starts the catch-up loop; resolves once the loop is running. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves when every read model has applied the event at `target` (read-your-writes). */
  waitFor(target: Position, timeoutMs?: number): Promise<void>;
  /** Position up to which this process has applied the log. */
  position(): Position;
  /** Applies everything visible now, then returns (CLI and tests). */
  catchUp(): Promise<void>;
  /** Last loop error, if the loop is failing (for readiness). */
  lastError(): Error | null;
};

const checkpointRow = z.object({ name: z.string(), tx: z.bigint(), seq: z.bigint() });

export const ensureCheckpoints = async (db: DatabasePool | DatabaseTransactionConnection, names: readonly string[]) => {
  for (const name of names) {
    await db.query(sql.unsafe`INSERT INTO projection_checkpoints (name) VALUES (${name}) ON CONFLICT (name) DO NOTHING`);
  }
};

/**
 * Applies one batch to every projection in ONE transaction with their checkpoints. The checkpoint
 * rows are locked first and re-read: that fences a second process (or a rebuild swap) that
 * applied the same events meanwhile, so nothing is applied twice and no checkpoint goes back.
 */
export const applyBatch = async (
  tx: DatabaseTransactionConnection,
  projections: readonly Projection[],
  events: readonly StoredEvent[],
): Promise<void> => {
  const rows = await tx.any(sql.type(checkpointRow)`
    SELECT name, tx, seq FROM projection_checkpoints
    WHERE name = ANY(${sql.array(projections.map((p) => p.name), 'text')}) ORDER BY name FOR UPDATE`);
  const checkpoints = new Map(rows.map((r) => [r.name, { tx: r.tx, seq: r.seq }]));
  for (const projection of projections) {
    const from = checkpoints.get(projection.name) ?? START;
    const fresh = events.filter((e) => comparePosition(e.position, from) > 0);
    if (fresh.length === 0) continue;
    await projection.apply(tx, fresh);
    const last = fresh[fresh.length - 1]!.position;
    await tx.query(sql.unsafe`
      INSERT INTO projection_checkpoints (name, tx, seq, updated_at) VALUES (${projection.name}, ${last.tx}, ${last.seq}, now())
      ON CONFLICT (name) DO UPDATE SET tx = excluded.tx, seq = excluded.seq, updated_at = now()`);
  }
};

export const createProjectionRunner = (options: ProjectionRunnerOptions): ProjectionRunner => {
  const { store, pool, projections } = options;
  const liveModels = options.liveModels ?? [];
  // One SpansIngested event of 512 LLM spans is ~2.5 MB of JSON: keep a batch's memory bounded.
  const batchSize = options.batchSize ?? 20;
  const idleMs = options.idleMs ?? 100;
  let position: Position = START;
  let running = false;
  let loopDone: Promise<void> = Promise.resolve();
  let wake: (() => void) | null = null;
  let lastError: Error | null = null;
  let waiters: Array<{ target: Position; resolve: () => void }> = [];

  const settleWaiters = () => {
    waiters = waiters.filter((w) => {
      if (comparePosition(position, w.target) < 0) return true;
      w.resolve();
      return false;
    });
  };

  /** Reads and applies one batch; returns how many events it saw. */
  const step = async (): Promise<number> => {
    const events = await store.readAll(position, batchSize);
    if (events.length === 0) return 0;
    await pool.transaction((tx) => applyBatch(tx, projections, events));
    for (const model of liveModels) model.apply(events);
    position = events[events.length - 1]!.position;
    settleWaiters();
    return events.length;
  };

  const loop = async () => {
    let backoff = idleMs;
    while (running) {
      try {
        const seen = await step();
        lastError = null;
        backoff = idleMs;
        if (seen > 0) continue;
      } catch (error) {
        lastError = error as Error;
        options.logger?.error({ err: error }, 'projection batch failed; retrying');
        backoff = Math.min(backoff * 2, 5000);
      }
      if (!running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, backoff);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  };

  const load = async () => {
    await ensureCheckpoints(pool, projections.map((p) => p.name));
    await pool.transaction(async (tx) => {
      // One snapshot for the checkpoints and the live models' tables.
      await tx.query(sql.unsafe`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
      const rows = await tx.any(sql.type(checkpointRow)`
        SELECT name, tx, seq FROM projection_checkpoints WHERE name = ANY(${sql.array(projections.map((p) => p.name), 'text')})`);
      position = rows.map((r) => ({ tx: r.tx, seq: r.seq })).sort(comparePosition)[0] ?? START;
      for (const model of liveModels) await model.load(tx);
    });
  };

  return {
    async start() {
      if (running) return;
      await load();
      running = true;
      loopDone = loop();
    },
    async stop() {
      running = false;
      wake?.();
      await loopDone;
    },
    position: () => position,
    lastError: () => lastError,
    async catchUp() {
      if (running) {
        // The loop owns `position`; stepping here too would feed live models twice.
        const head = await store.headPosition();
        if (comparePosition(head, START) > 0) await this.waitFor(head, 60_000);
        return;
      }
      await load();
      const head = await store.headPosition();
      const deadline = Date.now() + 60_000;
      while (comparePosition(position, head) < 0) {
        if ((await step()) > 0) continue;
        // Committed but not yet readable: an older transaction elsewhere holds the horizon back.
        if (Date.now() > deadline) throw new ProjectionTimeoutError(head);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    waitFor(target, timeoutMs = 5000) {
      if (comparePosition(position, target) >= 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w.resolve !== done);
          reject(new ProjectionTimeoutError(target));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        waiters.push({ target, resolve: done });
        wake?.();
      });
    },
  };
};

