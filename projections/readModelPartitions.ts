import type { StoredEvent } from '../domain/eventstore/types.ts';
import { comparePosition } from '../domain/eventstore/types.ts';
import { after, readCheckpointRows } from './readModelCheckpoints.ts';
import type { Lane, RunnerCore } from './readModelLane.ts';

/**
 * How far a partition of a read model (projection.ts, `ProjectionPartition`) may go in `events`:
 * up to the first barrier event (one that changes what every partition reads: a project, a price,
 * a deletion), and past it only when the group agrees. Partition 0 applies a barrier once every
 * other partition has applied everything before it (they are then waiting at it, so nothing they
 * write can interleave); the others go past it (without applying it) once partition 0 has. The
 * group's checkpoints are read from their rows: partitions may live in other processes. At most one
 * barrier is passed per call (the next step looks again); events are rare enough that waiting a
 * step or two at one costs nothing measurable.
 */
export const passable = async (core: RunnerCore, lane: Lane, events: readonly StoredEvent[]): Promise<StoredEvent[]> => {
  const part = lane.projection.partition;
  const fresh = after(events, lane.checkpoint);
  if (!part) return fresh;
  const at = fresh.findIndex(part.barrier);
  if (at < 0) return fresh;
  const barrier = fresh[at]!;
  // From the rows, not this process's lanes: the others may be applied elsewhere (or by nobody).
  const waitingFor = part.index === 0 ? part.names.slice(1) : [part.names[0]!];
  const rows = await readCheckpointRows(core.pool, waitingFor);
  const reached = (name: string) => {
    const row = rows.get(name);
    return row ? { tx: row.tx, seq: row.seq } : null;
  };
  const before = at > 0 ? fresh[at - 1]!.position : lane.checkpoint;
  const agreed =
    part.index === 0
      ? waitingFor.every((name) => {
          const p = reached(name);
          return p !== null && comparePosition(p, before) >= 0;
        })
      : waitingFor.every((name) => {
          const p = reached(name);
          return p !== null && comparePosition(p, barrier.position) >= 0;
        });
  return fresh.slice(0, agreed ? at + 1 : at);
};
