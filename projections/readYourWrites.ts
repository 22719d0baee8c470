import type { Position } from '../domain/eventstore/types.ts';
import { comparePosition } from '../domain/eventstore/types.ts';
import { ProjectionStoppedError, ProjectionTimeoutError } from './projectionErrors.ts';
import type { Lane, RunnerCore } from './readModelLane.ts';

type Waiter = {
  readonly target: Position;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  /** The type of the event at `target`: undefined = not looked up yet, null = unknown. */
  eventType: string | null | undefined;
  lookingUp: boolean;
};

export type ReadYourWrites = {
  /**
   * Resolves when every read model has applied the event at `target`. Rejects with
   * ProjectionStoppedError as soon as a stopped read model that reads that event's type stands in
   * the way, and with ProjectionTimeoutError after `timeoutMs`.
   */
  waitFor(target: Position, timeoutMs: number, wake: () => void): Promise<void>;
  /** Judges every pending wait again (the lanes moved, or one stopped). */
  settle(): void;
  pending(): boolean;
};

/**
 * Whether a wait is over: done, still waiting, or doomed by a stopped read model. Stopped, or
 * resumed and catching up on its own: such a read model only matters to the wait if it reads the
 * type of the event waited for (looked up once, by `lookUp`).
 */
const judge = (core: RunnerCore, w: Waiter, lookUp: (w: Waiter) => void): 'wait' | 'done' | Error => {
  if (core.liveModels.length > 0 && comparePosition(core.readPosition, w.target) < 0) return 'wait';
  const behind = core.lanes.filter((l) => comparePosition(l.checkpoint, w.target) < 0);
  if (behind.length === 0) return 'done';
  const recovering = behind.filter((l) => l.stop !== null || comparePosition(l.checkpoint, core.readPosition) < 0);
  if (recovering.length === 0) return 'wait';
  if (w.eventType === undefined) {
    lookUp(w);
    return 'wait';
  }
  const type = w.eventType;
  const reads = (l: Lane) => type === null || !l.projection.eventTypes || l.projection.eventTypes.includes(type);
  const stopped = recovering.find((l) => l.stop !== null && reads(l));
  if (stopped) return new ProjectionStoppedError(stopped.stop!, w.target);
  return behind.some((l) => !recovering.includes(l) || reads(l)) ? 'wait' : 'done';
};

/** Read-your-writes over the runner's lanes: a request that wrote waits until the read models show it. */
export const createReadYourWrites = (core: RunnerCore): ReadYourWrites => {
  let waiters: Waiter[] = [];

  const lookUp = (w: Waiter) => {
    if (w.lookingUp) return;
    w.lookingUp = true;
    // Positions are (tx, seq) with integer seq: the first event after (tx, seq - 1) is the one at target, if any.
    core.store.readAll({ tx: w.target.tx, seq: w.target.seq - 1n }, 1).then(
      ([event]) => {
        w.eventType = event && comparePosition(event.position, w.target) === 0 ? event.type : null;
        settle();
      },
      () => {
        w.eventType = null;
        settle();
      },
    );
  };

  const settle = () => {
    waiters = waiters.filter((w) => {
      const verdict = judge(core, w, lookUp);
      if (verdict === 'wait') return true;
      if (verdict === 'done') w.resolve();
      else w.reject(verdict);
      return false;
    });
  };

  const waitFor = (target: Position, timeoutMs: number, wake: () => void) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters = waiters.filter((w) => w !== waiter);
        reject(new ProjectionTimeoutError(target));
      }, timeoutMs);
      const waiter: Waiter = {
        target,
        eventType: undefined,
        lookingUp: false,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const verdict = judge(core, waiter, lookUp);
      if (verdict === 'done') return waiter.resolve();
      if (verdict !== 'wait') return waiter.reject(verdict);
      waiters.push(waiter);
      wake();
    });

  return { waitFor, settle, pending: () => waiters.length > 0 };
};
