import { comparePosition, START } from '../domain/eventstore/types.ts';
import { describeStop, stopFromRow } from './projectionStop.ts';
import { earliest, readCheckpointRows } from './readModelCheckpoints.ts';
import { nameOf, type RunnerCore } from './readModelLane.ts';

/** How often a follower reads the owners' checkpoints when nobody waits for them. */
const FOLLOW_IDLE_MS = 500;

/**
 * Brings the lanes in line with the locks the lease holds (it claims on its own timer): takes
 * over the read models whose owner is gone and gives up the ones this process lost (its lock
 * connection died: the locks went with it). A read model gained starts from its row, i.e. from
 * what the last owner committed; a batch the dead owner had in flight was rolled back with its
 * session.
 */
export const syncOwnership = async (core: RunnerCore): Promise<void> => {
  const { lease, lanes, logger } = core;
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
    const rows = await readCheckpointRows(core.pool, gained.map(nameOf));
    for (const lane of gained) {
      const row = rows.get(nameOf(lane));
      lane.checkpoint = row ? { tx: row.tx, seq: row.seq } : START;
      // A stop the last owner recorded is tried again at once, as at start.
      lane.stop = stopFromRow(nameOf(lane), row ?? null);
      lane.backoff.clear();
      lane.owned = true;
      lane.owner = core.selfLabel;
      if (lane.stop)
        logger?.warn?.({ projection: lane.stop.projection, event: lane.stop.event }, `trying again: ${describeStop(lane.stop)}`);
    }
    // Without live models nothing moved the reader while this process only followed.
    if (core.liveModels.length === 0 && !ownedBefore) core.readPosition = earliest(gained.map((l) => l.checkpoint));
    logger?.info?.({ projections: gained.map(nameOf), owner: core.selfLabel }, 'applying these read models in this process');
  }
  const owners = lease.owners();
  for (const lane of lanes) if (!lane.owned) lane.owner = owners.get(nameOf(lane)) ?? null;
};

/**
 * Reads the checkpoints (and recorded stops) of the read models another process applies, so that
 * waitFor, position and lag here see that process's progress. Polled: at every step while a
 * read-your-writes wait is pending (the loop steps every `idleMs` then), otherwise a few times a
 * second for status and lag. Polling needs no extra connection and works through a transaction
 * pooler, where LISTEN does not; the cost is one indexed read of a few rows per step.
 */
export const createFollower = (core: RunnerCore): (() => Promise<void>) => {
  let lastFollow = 0;
  return async () => {
    const followed = core.lanes.filter((l) => !l.owned);
    if (followed.length === 0) return;
    if (!core.waiting() && Date.now() - lastFollow < FOLLOW_IDLE_MS) return;
    lastFollow = Date.now();
    const rows = await readCheckpointRows(core.pool, followed.map(nameOf));
    for (const lane of followed) {
      const row = rows.get(nameOf(lane));
      if (!row || lane.owned) continue;
      const at = { tx: row.tx, seq: row.seq };
      if (comparePosition(at, lane.checkpoint) > 0) lane.checkpoint = at;
      lane.stop = stopFromRow(nameOf(lane), row);
    }
  };
};
