import type { EventStore, Position } from '../domain/eventstore/types.ts';
import { comparePosition, positionToString } from '../domain/eventstore/types.ts';
import type { ProjectionRunner } from './projectionRunner.ts';

/** How far one read model trails the log. */
export type ProjectionLag = {
  readonly name: string;
  /** Committed events after its checkpoint (counted up to LAG_COUNT_LIMIT, then that limit). */
  readonly events: number;
  /** Age of the oldest event it has not applied yet: how long users have not seen it. 0 when caught up. */
  readonly seconds: number;
  /**
   * Seconds it will take to apply the pending events at the rate this read model applied events
   * while it was busy (0 until that rate is known): the delay an event accepted now would see.
   */
  readonly drainSeconds: number;
  readonly stopped: boolean;
};

/**
 * Counting is an index scan; past this many events the exact number does not change any decision
 * and would cost a scan of millions of index entries per sample.
 */
export const LAG_COUNT_LIMIT = 1_000_000;

/** Events after `position` (bounded count) and the age in seconds of the first of them. */
export const lagAfter = async (store: EventStore, position: Position): Promise<{ events: number; seconds: number }> => {
  const { events, oldestRecordedAt } = await store.backlog(position, { cap: LAG_COUNT_LIMIT });
  return { events, seconds: events === 0 || !oldestRecordedAt ? 0 : Math.max(0, (Date.now() - oldestRecordedAt.getTime()) / 1000) };
};

/**
 * How often the lag is sampled. The ingest gate acts on the latest sample: sampled once a second,
 * a small bound left the projection without work between a refusal and the next sample (3 s bound:
 * 11 % fewer visible spans/s than every 250 ms, BENCHMARKS.md §12).
 */
export const DEFAULT_LAG_SAMPLE_MS = 250;
const DEEP_BACKLOG_EVENTS = 10_000;
const DEEP_BACKLOG_SAMPLE_MS = 1000;

/** Pending events from which a read model counts as busy for measuring its rate. */
const BUSY_BACKLOG = 10;
const RATE_WINDOW_MS = 5000;
/**
 * The first rate is taken over a shorter window: until one is known the gate sees only the age of
 * the oldest pending event, and a burst from idle queued twice the bound's worth of work before
 * that age reached it (BENCHMARKS.md §13). A pause read as a slow rate then only closes ingest
 * early for a few seconds, until the 5-second windows take over.
 */
const FIRST_RATE_WINDOW_MS = 1000;

/** Events after `from` up to and including `to`: what a read model applied between two samples. */
const appliedBetween = async (store: EventStore, from: Position, to: Position): Promise<number> =>
  comparePosition(to, from) <= 0 ? 0 : (await store.backlog(from, { cap: LAG_COUNT_LIMIT, through: to })).events;

export type LagMonitor = {
  /** The latest sample (empty before the first); never waits for the database. */
  current(): readonly ProjectionLag[];
  /**
   * Largest lag in seconds among running read models (stopped ones are excluded: see lagGate):
   * the age of the oldest pending event, or the time to apply the backlog if that is longer. The
   * age alone reacts too late: when it reaches the bound, the events accepted meanwhile still take
   * the projection longer than the bound to apply (measured: bound 30 s, age peaked at 88 s).
   */
  runningLagSeconds(): number;
  /** Takes a sample now (tests, and the first sample at start). */
  sample(): Promise<readonly ProjectionLag[]>;
  stop(): void;
};

/**
 * Samples each read model's lag in this process every `intervalMs` (every second on a deep
 * backlog), so that /metrics, /readyz and the ingest gate read a number instead of querying the log
 * on every request. Read models at
 * the same checkpoint (the usual case: they advance together) share one query.
 */
export const createLagMonitor = (options: {
  readonly store: EventStore;
  readonly runner: Pick<ProjectionRunner, 'projections'>;
  readonly intervalMs?: number;
  readonly onError?: (error: unknown) => void;
}): LagMonitor => {
  let latest: readonly ProjectionLag[] = [];
  let sampling: Promise<readonly ProjectionLag[]> | null = null;
  /** Per read model: where it was at the last sample, its backlog then, and its rate (events/s) while busy. */
  const seen = new Map<string, { position: Position; at: number; pending: number; rate: number | null }>();
  const sampleOnce = async () => {
    const states = options.runner.projections();
    const byPosition = new Map<string, Promise<{ events: number; seconds: number }>>();
    const lags: ProjectionLag[] = [];
    for (const state of states) {
      const key = positionToString(state.position);
      if (!byPosition.has(key)) byPosition.set(key, lagAfter(options.store, state.position));
      const lag = await byPosition.get(key)!;
      const now = Date.now();
      const before = seen.get(state.name);
      let rate = before?.rate ?? null;
      // Rates over windows of a few seconds: per one-second sample, a pause of the runner (a large
      // batch committing, a lock) reads as a collapse of its rate and would close ingest for nothing.
      if (before && now - before.at < (rate === null ? FIRST_RATE_WINDOW_MS : RATE_WINDOW_MS)) {
        const drainSeconds = rate && rate > 0 ? lag.events / rate : 0;
        lags.push({ name: state.name, ...lag, drainSeconds, stopped: state.stop !== null });
        continue;
      }
      // Only a read model with a real backlog at both samples was busy the whole interval and shows
      // what it can apply; one that keeps up idles between events and would look slow.
      if (before && before.pending >= BUSY_BACKLOG && lag.events >= BUSY_BACKLOG && now > before.at) {
        const applied = await appliedBetween(options.store, before.position, state.position);
        const measured = applied / ((now - before.at) / 1000);
        rate = rate === null ? measured : 0.5 * rate + 0.5 * measured;
      }
      seen.set(state.name, { position: state.position, at: now, pending: lag.events, rate });
      const drainSeconds = rate && rate > 0 ? lag.events / rate : 0;
      lags.push({ name: state.name, ...lag, drainSeconds, stopped: state.stop !== null });
    }
    latest = lags;
    return lags;
  };
  const sample = () => {
    sampling ??= sampleOnce().finally(() => {
      sampling = null;
    });
    return sampling;
  };
  const intervalMs = options.intervalMs ?? DEFAULT_LAG_SAMPLE_MS;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const next = (afterMs: number) => {
    if (stopped) return;
    timer = setTimeout(async () => {
      const lags = await sample().catch((error: unknown) => {
        options.onError?.(error);
        return [];
      });
      // Counting a deep backlog costs an index scan of up to LAG_COUNT_LIMIT entries: then once a
      // second is enough (the gate is closed anyway). Not spaced by how long a sample took: under
      // load that is mostly waiting for the event loop or a connection, and a gate reading a sample
      // a second old admitted a backlog twice its bound (BENCHMARKS.md §13).
      const deep = lags.some((l) => l.events >= DEEP_BACKLOG_EVENTS);
      next(deep ? Math.max(intervalMs, DEEP_BACKLOG_SAMPLE_MS) : intervalMs);
    }, afterMs);
    timer.unref();
  };
  next(intervalMs);
  return {
    current: () => latest,
    runningLagSeconds: () => latest.reduce((max, l) => (l.stopped ? max : Math.max(max, l.seconds, l.drainSeconds)), 0),
    sample,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
};
