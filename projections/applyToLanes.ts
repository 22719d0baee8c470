import { sql } from 'slonik';
import type { StoredEvent } from '../domain/eventstore/types.ts';
import { comparePosition } from '../domain/eventstore/types.ts';
import { foldSkipDecisions, PROJECTION_DECISIONS_STREAM } from '../domain/operations/projectionEventSkipped.ts';
import { clearStop, describeStop, isConnectionProblem, isTransientConflict, recordStop, stopAt } from './projectionStop.ts';
import { after, applyBatch } from './readModelCheckpoints.ts';
import { type Lane, type RunnerCore, skipRuleOf } from './readModelLane.ts';
import { passable } from './readModelPartitions.ts';

/**
 * How a batch reaches the read models, and the stop row when one cannot take it: all together in
 * one transaction (as fast as a single checkpoint was), and only when that fails each on its own,
 * then event by event, so that one meeting an event it cannot apply stops there alone. The stop is
 * recorded (log, checkpoint row, readiness) and retried with a growing pause; the event is never
 * skipped here, because a rebuild would apply it again (rebuild = live). It moves on when the
 * cause is fixed, or when an operator records a skip decision (`loupe projections skip`).
 */

export const refreshSkips = async (core: RunnerCore): Promise<void> => {
  core.skips = foldSkipDecisions(await core.store.readStream(PROJECTION_DECISIONS_STREAM));
};

/** Applies `events` to the given read models in one transaction and notes where each got to. */
const applyTo = async (core: RunnerCore, targets: readonly Lane[], events: readonly StoredEvent[]) => {
  const skip = skipRuleOf(core);
  const reached = await core.pool.transaction((tx) =>
    applyBatch(
      tx,
      targets.map((l) => l.projection),
      events,
      skip,
    ),
  );
  for (const lane of targets) {
    const at = reached.get(lane.projection.name);
    if (at && comparePosition(at, lane.checkpoint) > 0) lane.checkpoint = at;
  }
};

/** A lost connection (or a deadlock between partitions) is not the event's fault: rethrow it so the whole loop retries later. */
const rethrowIfDatabaseDown = async (core: RunnerCore, error: unknown) => {
  if (isTransientConflict(error)) throw error;
  if (!isConnectionProblem(error)) return;
  const reachable = await core.pool.oneFirst(sql.unsafe`SELECT 1`).then(
    () => true,
    () => false,
  );
  if (!reachable) throw error;
};

const stopLane = async (core: RunnerCore, lane: Lane, event: StoredEvent, error: unknown) => {
  const stop = stopAt(lane.projection.name, event, error);
  const again = lane.stop?.event.id === stop.event.id;
  lane.backoff.failed(again);
  if (again) {
    // Same event, same verdict: keep quiet (the first stop was logged), wait longer next time.
    if (lane.stop!.error !== stop.error) {
      lane.stop = { ...stop, since: lane.stop!.since };
      await recordStop(core.pool, lane.stop).catch(() => undefined);
    }
  } else {
    lane.stop = stop;
    // The reason as described (message and SQLSTATE), not the error object: driver errors carry
    // the statement's bound values and the constraint detail, i.e. row data.
    core.logger?.error(
      { projection: stop.projection, event: stop.event, reason: stop.error },
      `projection stopped: ${describeStop(stop)}. Other read models and ingest carry on; it is retried with backoff. ` +
        `If the event can never apply, see "loupe projections skip".`,
    );
    await recordStop(core.pool, stop).catch(() => undefined);
  }
  core.settleWaiters();
};

/**
 * Applies `events` to one read model. When the batch fails, applies them one at a time (each
 * committed) to find the event that fails, and stops the read model there. False if it stopped.
 */
const advance = async (core: RunnerCore, lane: Lane, events: readonly StoredEvent[]): Promise<boolean> => {
  const fresh = after(events, lane.checkpoint);
  if (fresh.length === 0) return true;
  try {
    await applyTo(core, [lane], fresh);
    return true;
  } catch (error) {
    await rethrowIfDatabaseDown(core, error);
  }
  for (const event of fresh) {
    try {
      await applyTo(core, [lane], [event]);
    } catch (error) {
      await rethrowIfDatabaseDown(core, error);
      await stopLane(core, lane, event, error);
      return false;
    }
  }
  return true;
};

/**
 * All together in one transaction, as long as every one of them can apply the batch; when that
 * fails, each on its own (and then event by event) to stop only the one that cannot.
 */
export const applyTogether = async (core: RunnerCore, targets: readonly Lane[], events: readonly StoredEvent[]): Promise<void> => {
  if (targets.length === 0 || events.length === 0) return;
  try {
    await applyTo(core, targets, events);
  } catch (error) {
    await rethrowIfDatabaseDown(core, error);
    for (const lane of targets) await advance(core, lane, events);
  }
};

/**
 * Applies `events` to the given read models: the plain ones together in one transaction
 * (`applyTogether`), each partition of a partitioned read model in a transaction of its own, all
 * at once (several database backends work while this process renders the next rows), and only as
 * far as its group lets it (`passable`). Returns how many events the lanes moved past at most.
 */
export const applyLanes = async (core: RunnerCore, targets: readonly Lane[], events: readonly StoredEvent[]): Promise<number> => {
  const plain = targets.filter((l) => !l.projection.partition);
  const parts = targets.filter((l) => l.projection.partition);
  let moved = plain.length > 0 ? events.length : 0;
  const applyPart = async (lane: Lane) => {
    const cut = await passable(core, lane, events);
    if (cut.length === 0) return;
    await applyTogether(core, [lane], cut);
    moved = Math.max(moved, cut.length);
  };
  // With a barrier in the batch, partition 0 goes first: the others can then pass it in this step.
  const barrier = parts.some((l) => events.some(l.projection.partition!.barrier));
  const leaders = barrier ? parts.filter((l) => l.projection.partition!.index === 0) : [];
  const settle = async (work: Promise<void>[]) => {
    // Every transaction ends before the step does (a rejected one must not leave another running).
    const failed = (await Promise.allSettled(work)).find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  };
  await settle([applyTogether(core, plain, events), ...leaders.map(applyPart)]);
  await settle(parts.filter((l) => !leaders.includes(l)).map(applyPart));
  return moved;
};

/**
 * The pack's batch when partitions are in it: up to the first barrier (excluded), or, when the
 * batch starts with one, up to the next. So the pack's partitions all wait at a barrier together
 * and pass it together in the next step (`applyLanes`), and stay one pack sharing one read.
 */
export const packBatch = (pack: readonly Lane[], events: readonly StoredEvent[]): readonly StoredEvent[] => {
  const barriers = pack.flatMap((l) => (l.projection.partition ? [l.projection.partition.barrier] : []));
  if (barriers.length === 0) return events;
  const isBarrier = (e: StoredEvent) => barriers.some((b) => b(e));
  const at = events.findIndex((e, i) => i > 0 && isBarrier(e));
  return at < 0 ? events : events.slice(0, at);
};

/** Tries the stopped read models whose pause is over, each from its own checkpoint (it is behind the others). */
export const retryDue = async (core: RunnerCore): Promise<void> => {
  for (const lane of core.lanes) {
    if (!lane.owned || !lane.stop || !lane.backoff.due()) continue;
    const was = lane.stop;
    await refreshSkips(core);
    const events = await passable(core, lane, await core.read(lane.checkpoint));
    if (!(await advance(core, lane, events))) continue;
    // The record first: whoever sees it running in memory also finds the record gone.
    await clearStop(core.pool, lane.projection.name);
    lane.stop = null;
    lane.backoff.clear();
    core.logger?.info?.(
      { projection: was.projection, event: was.event },
      `projection ${was.projection} resumed past event ${was.event.position}`,
    );
  }
};
