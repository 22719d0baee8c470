import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { EventStore } from '../domain/eventstore/types.ts';
import { STOP_COLUMNS, stopColumns, stopFromRow, type ProjectionStop } from './projectionStop.ts';

export type ProjectionStatus = {
  readonly name: string;
  readonly position: string;
  /** Events in the log after the checkpoint (`EventStore.backlog`: exact on Postgres, estimated on EventStoreDB). */
  readonly lag: number;
  readonly updatedAt: string | null;
  /** Where and why it stopped, as the runner recorded it; null while it runs. */
  readonly stop: ProjectionStop | null;
};

const row = z.object({ tx: z.bigint(), seq: z.bigint(), updated_at: z.number() }).extend(stopColumns.shape);

/** Each read model's checkpoint, how many visible events it has not applied yet, and where it stopped. */
export const projectionStatus = async (
  db: CommonQueryMethods,
  store: EventStore,
  names: readonly string[],
): Promise<ProjectionStatus[]> => {
  const result: ProjectionStatus[] = [];
  for (const name of names) {
    const r = await db.maybeOne(sql.type(row)`
      SELECT tx, seq, updated_at, ${STOP_COLUMNS}
      FROM projection_checkpoints WHERE name = ${name}`);
    const tx = r?.tx ?? 0n;
    const seq = r?.seq ?? 0n;
    const lag = (await store.backlog({ tx, seq }, { cap: Number.MAX_SAFE_INTEGER })).events;
    result.push({
      name,
      position: `${tx}:${seq}`,
      lag,
      updatedAt: r ? new Date(r.updated_at).toISOString() : null,
      stop: stopFromRow(name, r),
    });
  }
  return result;
};
