import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import type { EventStore, Position, StoredEvent } from '../../domain/eventstore/types.ts';
import { START } from '../../domain/eventstore/types.ts';
import { describeError } from '../projectionStop.ts';
import { DEFAULT_BATCH_BYTES } from '../readBatch.ts';
import type { ReadModelLease } from '../readModelLease.ts';
import type { AnyReactor, ReactorContext } from './reactor.ts';

export type ReactorLogger = { error: (obj: object, msg: string) => void; info?: (obj: object, msg: string) => void };

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
  readonly batchSize?: number;
  readonly now?: () => Date;
  readonly logger?: ReactorLogger;
};

export type ReactorState = {
  readonly name: string;
  readonly position: Position;
  readonly scheduledAt: Date | null;
  readonly error: string | null;
  readonly ownedHere: boolean;
};

export type ReactorRunner = {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Runs every reactor this process owns until it has reacted to everything visible now (CLI, tests). */
  catchUp(): Promise<void>;
  /** Runs the named reactor's schedule now (an operator's "apply the policies now"; tests). */
  runSchedule(name: string): Promise<void>;
  reactors(): ReactorState[];
};

const checkpointRow = z.object({
  tx: z.bigint(),
  seq: z.bigint(),
  // timestamptz arrives as epoch milliseconds (the pool's type parsers)
  scheduled_at: z.number().nullable(),
  error: z.string().nullable(),
});

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
 * Runs reactors (projections/reactors/reactor.ts): for each reactor this process owns, reads the
 * events after its checkpoint (only its types), lets it decide, issues the commands, then moves
 * the checkpoint with a compare-and-set (a second owner that got there first wins, nothing moves
 * back); and runs its schedule when due. A failing reactor records its error in its checkpoint
 * row and is tried again after a growing pause; the others carry on.
 */
export const createReactorRunner = (options: ReactorRunnerOptions): ReactorRunner => {
  const { store, pool, reactors, lease, logger } = options;
  const now = options.now ?? (() => new Date());
  const idleMs = options.idleMs ?? 250;
  const batchSize = options.batchSize ?? 100;
  const names = reactors.map((r) => r.name);
  if (new Set(names).size !== names.length) throw new Error(`reactor names must be unique: ${names.join(', ')}`);
  const states = new Map<string, ReactorState>();
  const retryAt = new Map<string, { at: number; delay: number }>();
  let running = false;
  let loopDone: Promise<void> = Promise.resolve();
  let wake: (() => void) | null = null;

  const owns = (r: AnyReactor) => !lease || lease.held().has(reactorLockName(r.name));

  const ensureRows = async () => {
    for (const name of names) {
      await pool.query(sql.unsafe`INSERT INTO reactor_checkpoints (name) VALUES (${name}) ON CONFLICT (name) DO NOTHING`);
    }
  };

  const readRow = async (name: string) =>
    pool.one(sql.type(checkpointRow)`SELECT tx, seq, scheduled_at, error FROM reactor_checkpoints WHERE name = ${name}`);

  const remember = (r: AnyReactor, row: z.infer<typeof checkpointRow>) =>
    states.set(r.name, {
      name: r.name,
      position: { tx: row.tx, seq: row.seq },
      scheduledAt: row.scheduled_at === null ? null : new Date(row.scheduled_at),
      error: row.error,
      ownedHere: owns(r),
    });

  const context = (): ReactorContext => ({ db: pool, now: now() });

  const issueAll = async (r: AnyReactor, commands: readonly unknown[]) => {
    for (const command of commands) await r.issue(command);
  };

  const read = (r: AnyReactor, after: Position): Promise<StoredEvent[]> =>
    store.readAll(after, batchSize, r.eventTypes ? { types: r.eventTypes } : { maxBytes: DEFAULT_BATCH_BYTES });

  /** One batch of events for `r`; returns how many it reacted to. */
  const reactOnce = async (r: AnyReactor): Promise<number> => {
    if (!r.react && !r.record) return 0; // time only
    const row = await readRow(r.name);
    remember(r, row);
    const from = { tx: row.tx, seq: row.seq };
    const events = await read(r, from);
    if (events.length === 0) return 0;
    const last = events[events.length - 1]!.position;
    if (r.afterReadModels) await options.readModels?.waitFor(last, 60_000);
    if (r.react) await issueAll(r, await r.react(events, context()));
    await pool.transaction(async (tx) => {
      // Compare-and-set: only from where this batch started. Another owner that moved it meanwhile
      // (a takeover while this one still ran) has done the same work; its checkpoint stands.
      const moved = await tx.maybeOne(sql.unsafe`
        SELECT 1 FROM reactor_checkpoints WHERE name = ${r.name} AND tx = ${from.tx} AND seq = ${from.seq} FOR UPDATE`);
      if (!moved) return;
      await r.record?.(tx, events);
      await tx.query(sql.unsafe`
        UPDATE reactor_checkpoints SET tx = ${last.tx}, seq = ${last.seq}, error = NULL, error_since = NULL, updated_at = now()
        WHERE name = ${r.name}`);
    });
    return events.length;
  };

  const scheduleOnce = async (r: AnyReactor, force: boolean): Promise<void> => {
    if (!r.schedule) return;
    const row = await readRow(r.name);
    const at = now();
    if (!force && row.scheduled_at !== null && at.getTime() - row.scheduled_at < r.schedule.everyMs) return;
    await issueAll(r, await r.schedule.react({ db: pool, now: at }));
    await pool.query(sql.unsafe`
      UPDATE reactor_checkpoints SET scheduled_at = ${at.toISOString()}, error = NULL, error_since = NULL, updated_at = now()
      WHERE name = ${r.name}`);
  };

  const failed = async (r: AnyReactor, error: unknown) => {
    const reason = describeError(error);
    const previous = retryAt.get(r.name);
    const delay = previous ? Math.min(previous.delay * 2, 60_000) : 1000;
    retryAt.set(r.name, { at: Date.now() + delay, delay });
    if (!previous) logger?.error({ reactor: r.name, reason }, `reactor failed; retried with backoff: ${reason}`);
    await pool
      .query(sql.unsafe`
        UPDATE reactor_checkpoints SET error = ${reason}, error_since = coalesce(error_since, now()), updated_at = now()
        WHERE name = ${r.name}`)
      .catch(() => undefined);
  };

  /** Everything due for every owned reactor; returns how many events were reacted to. */
  const step = async (): Promise<number> => {
    let seen = 0;
    for (const r of reactors) {
      if (!owns(r)) continue;
      const retry = retryAt.get(r.name);
      if (retry && Date.now() < retry.at) continue;
      try {
        seen += await reactOnce(r);
        await scheduleOnce(r, false);
        retryAt.delete(r.name);
      } catch (error) {
        await failed(r, error);
      }
    }
    return seen;
  };

  const loop = async () => {
    while (running) {
      const seen = await step().catch(() => 0);
      if (seen > 0) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, idleMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  };

  return {
    async start() {
      if (running || reactors.length === 0) return;
      await ensureRows();
      await lease?.start(names.map(reactorLockName), options.claimMs ?? 1000, () => wake?.());
      running = true;
      loopDone = loop();
    },
    async stop() {
      running = false;
      wake?.();
      await loopDone;
      await lease?.release();
    },
    async catchUp() {
      await ensureRows();
      await untilVisible(store, await store.headPosition());
      if (lease && !running) await lease.claim(names.map(reactorLockName));
      for (const r of reactors) {
        if (!owns(r)) continue;
        retryAt.delete(r.name);
        while ((await reactOnce(r)) > 0) {}
      }
    },
    async runSchedule(name) {
      const r = reactors.find((x) => x.name === name);
      if (!r) throw new Error(`no reactor named "${name}"`);
      await ensureRows();
      await scheduleOnce(r, true);
    },
    reactors: () =>
      reactors.map((r) => states.get(r.name) ?? { name: r.name, position: START, scheduledAt: null, error: null, ownedHere: owns(r) }),
  };
};
