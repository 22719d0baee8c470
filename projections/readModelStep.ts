import { sql } from 'slonik';
import type { Position } from '../domain/eventstore/types.ts';
import { comparePosition, positionToString, START } from '../domain/eventstore/types.ts';
import { foldSkipDecisions } from '../domain/operations/projectionEventSkipped.ts';
import { applyLanes, packBatch, refreshSkips, retryDue } from './applyToLanes.ts';
import { describeStop, stopFromRow } from './projectionStop.ts';
import { earliest, ensureCheckpoints, readCheckpointRows } from './readModelCheckpoints.ts';
import { type Lane, nameOf, type RunnerCore } from './readModelLane.ts';
import { syncOwnership } from './readModelOwnership.ts';

/**
 * One step of the read model runner: reads and applies one batch; returns how many events it saw.
 * The pack (running read models at the main reader's position) shares one read of the log with
 * the live models. A read model that resumed after a stop is behind the pack: it catches up on
 * reads of its own, a batch per step, so the others (and read-your-writes on them) never wait for
 * it. Read models behind at the same checkpoint (all of them, when this process just took them
 * over from a dead owner while its reader kept feeding the live models) share one read and one
 * transaction, as the pack does.
 */
export const step = async (core: RunnerCore, follow: () => Promise<void>): Promise<number> => {
  await syncOwnership(core);
  const { lanes, liveModels } = core;
  const pack = lanes.filter((l) => l.owned && !l.stop && comparePosition(l.checkpoint, core.readPosition) >= 0);
  const events = packBatch(pack, liveModels.length > 0 || pack.length > 0 ? await core.read(core.readPosition) : []);
  if (events.length > 0) {
    // A skip decision just taken (by an operator, possibly in another process): try at once.
    const decided = foldSkipDecisions(events);
    foldSkipDecisions(events, core.skips);
    for (const lane of lanes) if (lane.stop && decided.has(lane.projection.name)) lane.backoff.retryNow();
    await applyLanes(core, pack, events);
    for (const model of liveModels) model.apply(events);
    core.readPosition = events[events.length - 1]!.position;
  }
  let caughtUp = 0;
  const behind = new Map<string, Lane[]>();
  for (const lane of lanes) {
    if (!lane.owned || lane.stop || pack.includes(lane) || comparePosition(lane.checkpoint, core.readPosition) >= 0) continue;
    const key = positionToString(lane.checkpoint);
    behind.set(key, [...(behind.get(key) ?? []), lane]);
  }
  for (const group of behind.values()) {
    const own = await core.read(group[0]!.checkpoint);
    // Only what was applied counts: a partition waiting at a barrier must not spin the loop.
    caughtUp += await applyLanes(core, group, packBatch(group, own));
  }
  await retryDue(core);
  await follow();
  core.settleWaiters();
  return events.length + caughtUp;
};

/**
 * Reads every lane's checkpoint and recorded stop, and loads the live models, in one snapshot.
 * A stop recorded earlier (by this or another process) is tried again at once: the cause may be
 * fixed by now (new code, a skip decision), and if so the record is cleared.
 */
export const load = async (core: RunnerCore): Promise<void> => {
  const { lanes, liveModels } = core;
  const names = lanes.map(nameOf);
  await ensureCheckpoints(core.pool, names);
  await core.pool.transaction(async (tx) => {
    // One snapshot for the checkpoints and the live models' tables.
    await tx.query(sql.unsafe`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
    const byName = await readCheckpointRows(tx, names);
    for (const lane of lanes) {
      const row = byName.get(nameOf(lane));
      lane.checkpoint = row ? { tx: row.tx, seq: row.seq } : START;
      lane.stop = stopFromRow(nameOf(lane), row ?? null);
      if (lane.stop && lane.owned)
        core.logger?.warn?.({ projection: lane.stop.projection, event: lane.stop.event }, `trying again: ${describeStop(lane.stop)}`);
      lane.backoff.clear();
    }
    // Live models load from read models' tables, each at its own checkpoint; the earliest of
    // those is where feeding them resumes (replaying an event already reflected in a table
    // converges to the same state). A live model that names the read models it loads from spares
    // the replay from a stopped read model far behind (that one then catches up on its own).
    const sources = new Set(liveModels.flatMap((m) => m.loadsFrom ?? names));
    const fed = lanes.filter((l) => sources.has(nameOf(l)) || liveModels.length === 0);
    core.readPosition = earliest((fed.length > 0 ? fed : lanes).map((l) => l.checkpoint));
    for (const model of liveModels) await model.load(tx);
  });
  await refreshSkips(core);
};

/** Position up to which this process has applied the log (live models and running read models). */
export const position = (core: RunnerCore): Position => {
  const running = core.lanes.filter((l) => !l.stop).map((l) => l.checkpoint);
  // A follower without live models reads nothing itself: its reader position says nothing.
  if (core.lease && core.liveModels.length === 0 && running.length > 0) return earliest(running);
  return earliest([core.readPosition, ...running]);
};

/** Live models and every running read model have reached `head`. */
export const reached = (core: RunnerCore, head: Position): boolean =>
  (core.liveModels.length === 0 || comparePosition(core.readPosition, head) >= 0) &&
  core.lanes.every((l) => l.stop !== null || comparePosition(l.checkpoint, head) >= 0);
