import type { DatabasePool } from 'slonik';
import type { EventStore, Position, StoredEvent } from '../../domain/eventstore/types.ts';
import { START } from '../../domain/eventstore/types.ts';
import { createProcessorLoop } from '../processor/processorLoop.ts';
import { createRetryBackoff } from '../processor/retryBackoff.ts';
import { describeError } from '../projectionStop.ts';
import { DEFAULT_BATCH_BYTES } from '../readBatch.ts';
import type { AnyReactor, ReactorContext } from './reactor.ts';
import {
  markReactorScheduled,
  moveReactorCheckpoint,
  readReactorCheckpoint,
  type ReactorCheckpointRow,
  recordReactorError,
} from './reactorCheckpoint.ts';

export type ReactorLogger = { error: (obj: object, msg: string) => void; info?: (obj: object, msg: string) => void };

export type ReactorState = {
  readonly name: string;
  readonly position: Position;
  readonly scheduledAt: Date | null;
  readonly error: string | null;
  readonly ownedHere: boolean;
};

export type ReactorLaneOptions = {
  readonly reactor: AnyReactor;
  readonly store: EventStore;
  readonly pool: DatabasePool;
  /** Whether this process holds the reactor's lock (always, without a lease). */
  readonly owns: () => boolean;
  readonly readModels?: { waitFor(target: Position, timeoutMs?: number): Promise<void> };
  readonly idleMs: number;
  readonly maxIdleMs?: number;
  readonly batchSize: number;
  readonly now: () => Date;
  readonly logger?: ReactorLogger;
};

/**
 * One reactor's lane: its own loop, checkpoint row, error row and backoff. A lane that waits (a
 * model call that takes seconds, a read model it waits for, a failing command's backoff) holds up
 * only itself: every other reactor runs on a lane of its own.
 */
export type ReactorLane = {
  readonly name: string;
  start(): void;
  stop(): Promise<void>;
  wake(): void;
  /** One batch of events after the checkpoint; returns how many it reacted to. */
  reactOnce(): Promise<number>;
  /** The schedule, when due (or now with `force`); returns how many commands it issued. */
  scheduleOnce(force: boolean): Promise<number>;
  /** Forget a failure's pause (catch-up runs the lane now). */
  clearBackoff(): void;
  state(): ReactorState;
};

export const createReactorLane = (options: ReactorLaneOptions): ReactorLane => {
  const { reactor: r, store, pool, now } = options;
  const backoff = createRetryBackoff({ first: 1000, max: 60_000 });
  let seen: ReactorCheckpointRow | null = null;

  const context = (): ReactorContext => ({ db: pool, now: now() });
  const issueAll = async (commands: readonly unknown[]) => {
    for (const command of commands) await r.issue(command);
  };
  const read = (after: Position): Promise<StoredEvent[]> =>
    store.readAll(after, options.batchSize, r.eventTypes ? { types: r.eventTypes } : { maxBytes: DEFAULT_BATCH_BYTES });

  const reactOnce = async (): Promise<number> => {
    if (!r.react && !r.record) return 0; // time only
    const row = await readReactorCheckpoint(pool, r.name);
    seen = row;
    const from = { tx: row.tx, seq: row.seq };
    const events = await read(from);
    if (events.length === 0) return 0;
    const last = events[events.length - 1]!.position;
    if (r.afterReadModels) await options.readModels?.waitFor(last, 60_000);
    if (r.react) await issueAll(await r.react(events, context()));
    await pool.transaction(async (tx) => {
      if (await moveReactorCheckpoint(tx, r.name, from, last)) await r.record?.(tx, events);
    });
    return events.length;
  };

  const scheduleOnce = async (force: boolean): Promise<number> => {
    if (!r.schedule) return 0;
    const row = await readReactorCheckpoint(pool, r.name);
    const at = now();
    if (!force && row.scheduled_at !== null && at.getTime() - row.scheduled_at < r.schedule.everyMs) return 0;
    const commands = await r.schedule.react({ db: pool, now: at });
    await issueAll(commands);
    await markReactorScheduled(pool, r.name, at);
    return commands.length;
  };

  const failed = async (error: unknown) => {
    const reason = describeError(error);
    const first = !backoff.failing();
    backoff.failed(!first);
    if (first) options.logger?.error({ reactor: r.name, reason }, `reactor failed; retried with backoff: ${reason}`);
    await recordReactorError(pool, r.name, reason).catch(() => undefined);
  };

  const step = async (): Promise<number> => {
    if (!options.owns() || !backoff.due()) return 0;
    try {
      const reacted = await reactOnce();
      // A schedule that found work (a queue's due items) looks again at once when it is next due, without the idle pause.
      const issued = await scheduleOnce(false);
      backoff.clear();
      return reacted + issued;
    } catch (error) {
      await failed(error);
      return 0;
    }
  };
  const loop = createProcessorLoop({ step, idleMs: options.idleMs, maxIdleMs: options.maxIdleMs });

  return {
    name: r.name,
    start: () => loop.start(),
    stop: () => loop.stop(),
    wake: () => loop.wake(),
    reactOnce,
    scheduleOnce,
    clearBackoff: () => backoff.clear(),
    state: () => ({
      name: r.name,
      position: seen === null ? START : { tx: seen.tx, seq: seen.seq },
      scheduledAt: seen?.scheduled_at == null ? null : new Date(seen.scheduled_at),
      error: seen?.error ?? null,
      ownedHere: options.owns(),
    }),
  };
};
