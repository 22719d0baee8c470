import { sql, type DatabasePool, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { EventStore, Position, StoredEvent } from '../domain/eventstore/types.ts';
import { comparePosition, positionToString, START } from '../domain/eventstore/types.ts';
import { foldSkipDecisions, PROJECTION_DECISIONS_STREAM } from '../domain/operations/projectionEventSkipped.ts';
import type { LiveModel } from './liveModel.ts';
import type { Projection } from './projection.ts';
import { DEFAULT_BATCH_BYTES } from './readBatch.ts';
import type { ReadModelLease } from './readModelLease.ts';
import { cleanRebuildLeftovers } from './rebuildLeftovers.ts';
import {
  clearStop,
  describeStop,
  isConnectionProblem,
  recordStop,
  STOP_COLUMNS,
  stopAt,
  stopColumns,
  stopFromRow,
  type ProjectionStop,
} from './projectionStop.ts';

export class ProjectionTimeoutError extends Error {
  readonly code: string = 'projection_timeout';
  constructor(target: Position) {
    super(`read models did not reach position ${target.tx}:${target.seq} in time`);
  }
}

/**
 * A read-your-writes wait that cannot succeed: a read model the change needs is stopped at an
 * event it cannot apply. It answers 503 at once (naming the read model) instead of hanging; it is
 * a ProjectionTimeoutError so callers that tolerate a lagging read model tolerate this too.
 */
export class ProjectionStoppedError extends ProjectionTimeoutError {
  override readonly code = 'projection_stopped';
  readonly status = 503;
  readonly expose = true;
  readonly headers = { 'retry-after': '30' };
  constructor(
    readonly stop: ProjectionStop,
    target: Position,
  ) {
    super(target);
    this.message =
      `The change is stored, but the "${stop.projection}" read model is stopped at event ${stop.event.position} ` +
      `(${stop.event.type}) and cannot show it until an operator acts; see "loupe projections status".`;
  }
}

export type RunnerLogger = {
  error: (obj: object, msg: string) => void;
  warn?: (obj: object, msg: string) => void;
  info?: (obj: object, msg: string) => void;
};

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
};

const checkpointRow = z.object({ name: z.string(), tx: z.bigint(), seq: z.bigint() });

export const ensureCheckpoints = async (db: DatabasePool | DatabaseTransactionConnection, names: readonly string[]) => {
  for (const name of names) {
    await db.query(sql.unsafe`INSERT INTO projection_checkpoints (name) VALUES (${name}) ON CONFLICT (name) DO NOTHING`);
  }
};

/** Which events a read model leaves out by an operator's decision (`loupe projections skip`). */
export type SkipRule = (projection: string, event: StoredEvent) => boolean;

const after = (events: readonly StoredEvent[], position: Position) => events.filter((e) => comparePosition(e.position, position) > 0);

/**
 * Applies a batch to the given projections in one transaction with their checkpoints, and returns
 * each one's checkpoint afterwards. The checkpoint rows are locked first and re-read: that fences a
 * second process (or a rebuild swap) that applied the same events meanwhile, so nothing is applied
 * twice and no checkpoint goes back. Skipped events are not applied but the checkpoint passes them.
 */
export const applyBatch = async (
  tx: DatabaseTransactionConnection,
  projections: readonly Projection[],
  events: readonly StoredEvent[],
  skip: SkipRule = () => false,
): Promise<Map<string, Position>> => {
  const rows = await tx.any(sql.type(checkpointRow)`
    SELECT name, tx, seq FROM projection_checkpoints
    WHERE name = ANY(${sql.array(
      projections.map((p) => p.name),
      'text',
    )}) ORDER BY name FOR UPDATE`);
  const checkpoints = new Map(rows.map((r) => [r.name, { tx: r.tx, seq: r.seq }]));
  const reached = new Map<string, Position>();
  for (const projection of projections) {
    const from = checkpoints.get(projection.name) ?? START;
    const fresh = after(events, from);
    reached.set(projection.name, from);
    if (fresh.length === 0) continue;
    const applied = fresh.filter((e) => !skip(projection.name, e));
    if (applied.length > 0) await projection.apply(tx, applied);
    const last = fresh[fresh.length - 1]!.position;
    await tx.query(sql.unsafe`
      INSERT INTO projection_checkpoints (name, tx, seq, updated_at) VALUES (${projection.name}, ${last.tx}, ${last.seq}, now())
      ON CONFLICT (name) DO UPDATE SET tx = excluded.tx, seq = excluded.seq, updated_at = now()`);
    reached.set(projection.name, last);
  }
  return reached;
};

/** How often a follower reads the owners' checkpoints when nobody waits for them. */
const FOLLOW_IDLE_MS = 500;

const earliest = (positions: readonly Position[]): Position =>
  positions.reduce((a, b) => (comparePosition(a, b) <= 0 ? a : b), positions[0] ?? START);

type Lane = {
  readonly projection: Projection;
  /** This process applies it; otherwise another process does, and `checkpoint` and `stop` are read from its row. */
  owned: boolean;
  /** Who applies it, as last seen (this process's label when owned). */
  owner: string | null;
  /** Everything up to here is applied (as far as this process knows; the database row is the truth). */
  checkpoint: Position;
  stop: ProjectionStop | null;
  retryAt: number;
  retryDelay: number;
};

type Waiter = {
  readonly target: Position;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  /** The type of the event at `target`: undefined = not looked up yet, null = unknown. */
  eventType: string | null | undefined;
  lookingUp: boolean;
};

/**
 * Keeps every read model and live model fed from the log. Each read model has its own checkpoint.
 * A batch goes to all running ones in one transaction (as fast as a single checkpoint was), and
 * only when that fails to each on its own, then event by event, so that one meeting an event it
 * cannot apply stops there alone. The stop is recorded (log, checkpoint row, readiness) and retried
 * with a growing pause; the event is never skipped by the runner itself, because a rebuild would
 * apply it again (rebuild = live). It moves on when the cause is fixed, or when an operator records
 * a skip decision in the log (`loupe projections skip`), which a rebuild honours the same way.
 */
export const createProjectionRunner = (options: ProjectionRunnerOptions): ProjectionRunner => {
  const { store, pool, projections, logger } = options;
  const liveModels = options.liveModels ?? [];
  // One SpansIngested event of 512 LLM spans is ~2.5 MB of JSON: keep a batch's memory bounded.
  const batchSize = options.batchSize ?? 20;
  // ...and by bytes: 20 events of 2,000 spans each would be ~200 MB of JSON, over 1 GB in memory.
  const batchBytes = options.batchBytes ?? DEFAULT_BATCH_BYTES;
  const read = (from: Position) => store.readAll(from, batchSize, { maxBytes: batchBytes });
  const idleMs = options.idleMs ?? 100;
  const retryFirst = options.retryMs?.first ?? 1000;
  const retryMax = options.retryMs?.max ?? 30_000;
  const lease = options.lease;
  const claimMs = options.claimMs ?? 1000;
  const selfLabel = lease?.label ?? options.label ?? 'this process';
  const lanes: Lane[] = projections.map((projection) => ({
    projection,
    owned: !lease,
    owner: lease ? null : selfLabel,
    checkpoint: START,
    stop: null,
    retryAt: 0,
    retryDelay: retryFirst,
  }));
  /** Where the main reader is: the live models and the pack of running read models have seen the log up to here. */
  let readPosition: Position = START;
  let skips = new Map<string, Set<string>>();
  let running = false;
  let loopDone: Promise<void> = Promise.resolve();
  let wake: (() => void) | null = null;
  let lastError: Error | null = null;
  let waiters: Waiter[] = [];

  const skipRule: SkipRule = (name, event) => skips.get(name)?.has(event.id) ?? false;
  const refreshSkips = async () => {
    skips = foldSkipDecisions(await store.readStream(PROJECTION_DECISIONS_STREAM));
  };

  const lookUpType = (w: Waiter) => {
    if (w.lookingUp) return;
    w.lookingUp = true;
    // Positions are (tx, seq) with integer seq: the first event after (tx, seq - 1) is the one at target, if any.
    store.readAll({ tx: w.target.tx, seq: w.target.seq - 1n }, 1).then(
      ([event]) => {
        w.eventType = event && comparePosition(event.position, w.target) === 0 ? event.type : null;
        settleWaiters();
      },
      () => {
        w.eventType = null;
        settleWaiters();
      },
    );
  };

  const judge = (w: Waiter): 'wait' | 'done' | Error => {
    if (liveModels.length > 0 && comparePosition(readPosition, w.target) < 0) return 'wait';
    const behind = lanes.filter((l) => comparePosition(l.checkpoint, w.target) < 0);
    if (behind.length === 0) return 'done';
    // Stopped, or resumed and catching up on its own: such a read model only matters to this
    // wait if it reads the type of the event waited for.
    const recovering = behind.filter((l) => l.stop !== null || comparePosition(l.checkpoint, readPosition) < 0);
    if (recovering.length === 0) return 'wait';
    if (w.eventType === undefined) {
      lookUpType(w);
      return 'wait';
    }
    const type = w.eventType;
    const reads = (l: Lane) => type === null || !l.projection.eventTypes || l.projection.eventTypes.includes(type);
    const stopped = recovering.find((l) => l.stop !== null && reads(l));
    if (stopped) return new ProjectionStoppedError(stopped.stop!, w.target);
    return behind.some((l) => !recovering.includes(l) || reads(l)) ? 'wait' : 'done';
  };

  const settleWaiters = () => {
    waiters = waiters.filter((w) => {
      const verdict = judge(w);
      if (verdict === 'wait') return true;
      if (verdict === 'done') w.resolve();
      else w.reject(verdict);
      return false;
    });
  };

  /** Applies `events` to the given read models in one transaction and notes where each got to. */
  const applyTo = async (targets: readonly Lane[], events: readonly StoredEvent[]) => {
    const reached = await pool.transaction((tx) =>
      applyBatch(
        tx,
        targets.map((l) => l.projection),
        events,
        skipRule,
      ),
    );
    for (const lane of targets) {
      const at = reached.get(lane.projection.name);
      if (at && comparePosition(at, lane.checkpoint) > 0) lane.checkpoint = at;
    }
  };

  /** A lost connection is not the event's fault: rethrow it so the whole loop retries later. */
  const rethrowIfDatabaseDown = async (error: unknown) => {
    if (!isConnectionProblem(error)) return;
    const reachable = await pool.oneFirst(sql.unsafe`SELECT 1`).then(
      () => true,
      () => false,
    );
    if (!reachable) throw error;
  };

  const stopLane = async (lane: Lane, event: StoredEvent, error: unknown) => {
    const stop = stopAt(lane.projection.name, event, error);
    const again = lane.stop?.event.id === stop.event.id;
    if (again) {
      // Same event, same verdict: keep quiet (the first stop was logged), wait longer next time.
      lane.retryDelay = Math.min(lane.retryDelay * 2, retryMax);
      if (lane.stop!.error !== stop.error) {
        lane.stop = { ...stop, since: lane.stop!.since };
        await recordStop(pool, lane.stop).catch(() => undefined);
      }
    } else {
      lane.stop = stop;
      lane.retryDelay = retryFirst;
      // The reason as described (message and SQLSTATE), not the error object: driver errors carry
      // the statement's bound values and the constraint detail, i.e. row data.
      logger?.error(
        { projection: stop.projection, event: stop.event, reason: stop.error },
        `projection stopped: ${describeStop(stop)}. Other read models and ingest carry on; it is retried with backoff. ` +
          `If the event can never apply, see "loupe projections skip".`,
      );
      await recordStop(pool, stop).catch(() => undefined);
    }
    lane.retryAt = Date.now() + lane.retryDelay;
    settleWaiters();
  };

  /**
   * Applies `events` to one read model. When the batch fails, applies them one at a time (each
   * committed) to find the event that fails, and stops the read model there. False if it stopped.
   */
  const advance = async (lane: Lane, events: readonly StoredEvent[]): Promise<boolean> => {
    const fresh = after(events, lane.checkpoint);
    if (fresh.length === 0) return true;
    try {
      await applyTo([lane], fresh);
      return true;
    } catch (error) {
      await rethrowIfDatabaseDown(error);
    }
    for (const event of fresh) {
      try {
        await applyTo([lane], [event]);
      } catch (error) {
        await rethrowIfDatabaseDown(error);
        await stopLane(lane, event, error);
        return false;
      }
    }
    return true;
  };

  /**
   * All together in one transaction, as long as every one of them can apply the batch; when that
   * fails, each on its own (and then event by event) to stop only the one that cannot.
   */
  const applyTogether = async (targets: readonly Lane[], events: readonly StoredEvent[]) => {
    if (targets.length === 0 || events.length === 0) return;
    try {
      await applyTo(targets, events);
    } catch (error) {
      await rethrowIfDatabaseDown(error);
      for (const lane of targets) await advance(lane, events);
    }
  };

  const retryDue = async () => {
    for (const lane of lanes) {
      if (!lane.owned || !lane.stop || Date.now() < lane.retryAt) continue;
      const was = lane.stop;
      await refreshSkips();
      // Read from this read model's own checkpoint: it is behind the others.
      const events = await read(lane.checkpoint);
      if (!(await advance(lane, events))) continue;
      // The record first: whoever sees it running in memory also finds the record gone.
      await clearStop(pool, lane.projection.name);
      lane.stop = null;
      lane.retryDelay = retryFirst;
      logger?.info?.(
        { projection: was.projection, event: was.event },
        `projection ${was.projection} resumed past event ${was.event.position}`,
      );
    }
  };

  const stopRow = checkpointRow.extend(stopColumns.shape);
  const rowsOf = async (names: readonly string[]) =>
    new Map(
      (
        await pool.any(sql.type(stopRow)`
          SELECT name, tx, seq, ${STOP_COLUMNS} FROM projection_checkpoints WHERE name = ANY(${sql.array(names, 'text')})`)
      ).map((r) => [r.name, r]),
    );
  const nameOf = (l: Lane) => l.projection.name;

  /**
   * Brings the lanes in line with the locks the lease holds (it claims on its own timer): takes
   * over the read models whose owner is gone and gives up the ones this process lost (its lock
   * connection died: the locks went with it). A read model gained starts from its row, i.e. from
   * what the last owner committed; a batch the dead owner had in flight was rolled back with its
   * session.
   */
  const syncOwnership = async () => {
    if (!lease) return;
    const held = lease.held();
    const lost = lanes.filter((l) => l.owned && !held.has(nameOf(l)));
    for (const lane of lost) {
      lane.owned = false;
      lane.owner = null;
    }
    if (lost.length > 0)
      logger?.warn?.(
        { projections: lost.map(nameOf), reason: lease.lastError()?.message ?? null },
        'lost the lock of read models (database connection gone?): no longer applying them here; another process takes over',
      );
    const gained = lanes.filter((l) => !l.owned && held.has(nameOf(l)));
    if (gained.length > 0) {
      const ownedBefore = lanes.some((l) => l.owned);
      const rows = await rowsOf(gained.map(nameOf));
      for (const lane of gained) {
        const row = rows.get(nameOf(lane));
        lane.checkpoint = row ? { tx: row.tx, seq: row.seq } : START;
        // A stop the last owner recorded is tried again at once, as at start.
        lane.stop = stopFromRow(nameOf(lane), row ?? null);
        lane.retryAt = 0;
        lane.retryDelay = retryFirst;
        lane.owned = true;
        lane.owner = selfLabel;
        if (lane.stop)
          logger?.warn?.({ projection: lane.stop.projection, event: lane.stop.event }, `trying again: ${describeStop(lane.stop)}`);
      }
      // Without live models nothing moved the reader while this process only followed.
      if (liveModels.length === 0 && !ownedBefore) readPosition = earliest(gained.map((l) => l.checkpoint));
      logger?.info?.({ projections: gained.map(nameOf), owner: selfLabel }, 'applying these read models in this process');
    }
    const owners = lease.owners();
    for (const lane of lanes) if (!lane.owned) lane.owner = owners.get(nameOf(lane)) ?? null;
  };

  let lastFollow = 0;
  /**
   * Reads the checkpoints (and recorded stops) of the read models another process applies, so that
   * waitFor, position and lag here see that process's progress. Polled: at every step while a
   * read-your-writes wait is pending (the loop steps every `idleMs` then), otherwise a few times a
   * second for status and lag. Polling needs no extra connection and works through a transaction
   * pooler, where LISTEN does not; the cost is one indexed read of a few rows per step.
   */
  const follow = async () => {
    const followed = lanes.filter((l) => !l.owned);
    if (followed.length === 0) return;
    if (waiters.length === 0 && Date.now() - lastFollow < FOLLOW_IDLE_MS) return;
    lastFollow = Date.now();
    const rows = await rowsOf(followed.map(nameOf));
    for (const lane of followed) {
      const row = rows.get(nameOf(lane));
      if (!row || lane.owned) continue;
      const at = { tx: row.tx, seq: row.seq };
      if (comparePosition(at, lane.checkpoint) > 0) lane.checkpoint = at;
      lane.stop = stopFromRow(nameOf(lane), row);
    }
  };

  /** Reads and applies one batch; returns how many events it saw. */
  const step = async (): Promise<number> => {
    // The pack: running read models at the main reader's position. One read of the log feeds
    // them and the live models.
    await syncOwnership();
    const pack = lanes.filter((l) => l.owned && !l.stop && comparePosition(l.checkpoint, readPosition) >= 0);
    const events = liveModels.length > 0 || pack.length > 0 ? await read(readPosition) : [];
    if (events.length > 0) {
      // A skip decision just taken (by an operator, possibly in another process): try at once.
      const decided = foldSkipDecisions(events);
      foldSkipDecisions(events, skips);
      for (const lane of lanes) if (lane.stop && decided.has(lane.projection.name)) lane.retryAt = 0;
      await applyTogether(pack, events);
      for (const model of liveModels) model.apply(events);
      readPosition = events[events.length - 1]!.position;
    }
    // A read model that resumed after a stop is behind the pack: it catches up on reads of its
    // own, a batch per step, so the others (and read-your-writes on them) never wait for it. Read
    // models behind at the same checkpoint (all of them, when this process just took them over
    // from a dead owner while its reader kept feeding the live models) share one read and one
    // transaction, as the pack does.
    let caughtUp = 0;
    const behind = new Map<string, Lane[]>();
    for (const lane of lanes) {
      if (!lane.owned || lane.stop || pack.includes(lane) || comparePosition(lane.checkpoint, readPosition) >= 0) continue;
      const key = positionToString(lane.checkpoint);
      behind.set(key, [...(behind.get(key) ?? []), lane]);
    }
    for (const group of behind.values()) {
      const own = await read(group[0]!.checkpoint);
      caughtUp += own.length;
      await applyTogether(group, own);
    }
    await retryDue();
    await follow();
    settleWaiters();
    return events.length + caughtUp;
  };

  const position = () => {
    const running = lanes.filter((l) => !l.stop).map((l) => l.checkpoint);
    // A follower without live models reads nothing itself: its reader position says nothing.
    if (lease && liveModels.length === 0 && running.length > 0) return earliest(running);
    return earliest([readPosition, ...running]);
  };
  /** Live models and every running read model have reached `head`. */
  const reached = (head: Position) =>
    (liveModels.length === 0 || comparePosition(readPosition, head) >= 0) &&
    lanes.every((l) => l.stop !== null || comparePosition(l.checkpoint, head) >= 0);

  const loop = async () => {
    let backoff = idleMs;
    while (running) {
      try {
        const seen = await step();
        if (lastError) logger?.info?.({}, 'projection runner recovered');
        lastError = null;
        backoff = idleMs;
        if (seen > 0) continue;
      } catch (error) {
        // Logged when it starts or changes, not on every retry of the same outage.
        if (lastError?.message !== (error as Error).message) logger?.error({ err: error }, 'projection batch failed; retrying');
        lastError = error as Error;
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
    await ensureCheckpoints(
      pool,
      projections.map((p) => p.name),
    );
    await pool.transaction(async (tx) => {
      // One snapshot for the checkpoints and the live models' tables.
      await tx.query(sql.unsafe`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
      const rows = await tx.any(sql.type(stopRow)`
        SELECT name, tx, seq, ${STOP_COLUMNS}
        FROM projection_checkpoints WHERE name = ANY(${sql.array(
          projections.map((p) => p.name),
          'text',
        )})`);
      const byName = new Map(rows.map((r) => [r.name, r]));
      for (const lane of lanes) {
        const row = byName.get(lane.projection.name);
        lane.checkpoint = row ? { tx: row.tx, seq: row.seq } : START;
        // A stop recorded earlier (by this or another process) is tried again at once: the cause
        // may be fixed by now (new code, a skip decision), and if so the record is cleared.
        lane.stop = stopFromRow(lane.projection.name, row ?? null);
        if (lane.stop && lane.owned)
          logger?.warn?.({ projection: lane.stop.projection, event: lane.stop.event }, `trying again: ${describeStop(lane.stop)}`);
        lane.retryAt = 0;
        lane.retryDelay = retryFirst;
      }
      // Live models load from read models' tables, each at its own checkpoint; the earliest of
      // those is where feeding them resumes (replaying an event already reflected in a table
      // converges to the same state). A live model that names the read models it loads from spares
      // the replay from a stopped read model far behind (that one then catches up on its own).
      const sources = new Set(liveModels.flatMap((m) => m.loadsFrom ?? lanes.map((l) => l.projection.name)));
      const fed = lanes.filter((l) => sources.has(l.projection.name) || liveModels.length === 0);
      readPosition = earliest((fed.length > 0 ? fed : lanes).map((l) => l.checkpoint));
      for (const model of liveModels) await model.load(tx);
    });
    await refreshSkips();
  };

  return {
    async start() {
      if (running) return;
      // A rebuild killed earlier (SIGKILL, power loss) left its scratch schema behind: tidy up.
      const dropped = await cleanRebuildLeftovers(pool);
      if (dropped.length > 0) logger?.warn?.({ schemas: dropped }, 'dropped scratch schemas of rebuilds that did not finish');
      await load();
      // Claim before serving: a lone process owns everything from its first request on.
      await lease?.start(lanes.map(nameOf), claimMs, () => wake?.());
      await syncOwnership();
      running = true;
      loopDone = loop();
    },
    async stop() {
      running = false;
      wake?.();
      await loopDone;
      await lease?.release();
      if (lease)
        for (const lane of lanes) {
          lane.owned = false;
          lane.owner = null;
        }
    },
    position,
    projections: () =>
      lanes.map((l) => ({ name: l.projection.name, position: l.checkpoint, stop: l.stop, ownedHere: l.owned, owner: l.owner })),
    lastError: () => lastError,
    retry(name) {
      const lane = lanes.find((l) => l.projection.name === name);
      if (lane?.stop && lane.owned) {
        lane.retryAt = 0;
        wake?.();
      }
    },
    async catchUp() {
      if (running) {
        // The loop owns the positions; stepping here too would feed live models twice.
        const head = await store.headPosition();
        if (comparePosition(head, START) > 0) {
          await this.waitFor(head, 60_000).catch((error: unknown) => {
            if (!(error instanceof ProjectionStoppedError)) throw error;
          });
        }
        return;
      }
      await load();
      const head = await store.headPosition();
      const deadline = Date.now() + 60_000;
      // At least one step: it also tries read models recorded as stopped.
      for (;;) {
        const seen = await step();
        if (reached(head)) return;
        if (seen > 0) continue;
        // Committed but not yet readable: an older transaction elsewhere holds the horizon back.
        if (Date.now() > deadline) throw new ProjectionTimeoutError(head);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    waitFor(target, timeoutMs = 5000) {
      return new Promise<void>((resolve, reject) => {
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
        const verdict = judge(waiter);
        if (verdict === 'done') return waiter.resolve();
        if (verdict !== 'wait') return waiter.reject(verdict);
        waiters.push(waiter);
        wake?.();
      });
    },
  };
};
