import { sql, type CommonQueryMethods, type DatabasePool, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { positionToString } from '../../domain/eventstore/types.ts';
import { ensureCheckpoints } from '../readModelCheckpoints.ts';
import { LAYOUT_KIND } from './idAllocator.ts';
import { idKindOf, TRACING, tracingPartitionName } from './tracingPartitions.ts';

const ID_KINDS = ['project', 'trace', 'span', 'session'] as const;

/** Thrown by a partition whose process was started with another count than the tables are kept in. */
export class TracingLayoutError extends Error {}

export const storedPartitionCount = async (db: CommonQueryMethods): Promise<number> =>
  Number(
    (await db.maybeOneFirst(sql.type(z.object({ last: z.bigint() }))`SELECT last FROM tracing_ids WHERE kind = ${LAYOUT_KIND}`)) ?? 1n,
  );

/**
 * Lays the tracing tables out for `count` partitions with every partition at `position`'s
 * counters: the ids partition 0 handed out (all partitions count all spans, so at one position
 * their counters agree) are copied to every partition, rows of partitions past the count go.
 */
const writeLayout = async (tx: DatabaseTransactionConnection, count: number) => {
  for (const kind of ID_KINDS) {
    await tx.query(sql.unsafe`DELETE FROM tracing_ids WHERE kind LIKE ${`${kind}.%`}`);
    for (let i = 1; i < count; i++)
      await tx.query(sql.unsafe`
        INSERT INTO tracing_ids (kind, last) SELECT ${idKindOf(kind, i)}, last FROM tracing_ids WHERE kind = ${kind}`);
  }
  await tx.query(sql.unsafe`
    INSERT INTO tracing_ids (kind, last) VALUES (${LAYOUT_KIND}, ${count}) ON CONFLICT (kind) DO UPDATE SET last = excluded.last`);
};

/** Every partition's checkpoint row (partition 0 first), locked: no partition applies anything meanwhile. */
const lockPartitions = (tx: DatabaseTransactionConnection) =>
  tx.any(sql.type(z.object({ name: z.string(), tx: z.bigint(), seq: z.bigint(), stopped: z.boolean() }))`
    SELECT name, tx, seq, stopped_event_id IS NOT NULL AS stopped FROM projection_checkpoints
    WHERE name = ${TRACING} OR name ~ '^tracing\\.[0-9]+$' ORDER BY name FOR UPDATE`);

/**
 * Makes the tracing tables ready for `count` partitions (`SERVICE_TRACING_PARTITIONS`) before the
 * runner starts. Kept in another count, they are repartitioned here when every partition is at the
 * same position (always so for one partition: an upgrade needs nothing): each partition of the new
 * count starts there with the same counters, and a trace may move to another partition because
 * every event before that position is applied. Otherwise (partitions of a larger count apart) this
 * refuses, with what to do. Processes still running with the old count stop their partitions at
 * their next batch (`checkLayout`).
 */
export const ensureTracingLayout = async (pool: DatabasePool, count: number): Promise<void> => {
  await ensureCheckpoints(
    pool,
    Array.from({ length: count }, (_, i) => tracingPartitionName(i)),
  );
  await pool.transaction(async (tx) => {
    const rows = await lockPartitions(tx);
    const stored = await storedPartitionCount(tx);
    const current = rows.filter((r) => r.name === TRACING || Number(r.name.slice(TRACING.length + 1)) < stored);
    if (stored === count) {
      // Rows of partitions this count has but the stored layout lacks cannot be: fill any gap alike.
      const missing = await tx.anyFirst(sql.type(z.object({ kind: z.string() }))`SELECT kind FROM tracing_ids WHERE kind LIKE 'span.%'`);
      if (missing.length !== count - 1) await writeLayout(tx, count);
      return;
    }
    const first = current.find((r) => r.name === TRACING);
    const apart = current.filter((r) => r.tx !== first?.tx || r.seq !== first?.seq);
    if (apart.length > 0 || current.some((r) => r.stopped))
      throw new TracingLayoutError(
        `the tracing read model is applied in ${stored} partitions here, and SERVICE_TRACING_PARTITIONS asks for ${count}; ` +
          `its partitions are not at one position (${current.map((r) => `${r.name} ${positionToString({ tx: r.tx, seq: r.seq })}${r.stopped ? ' stopped' : ''}`).join(', ')}). ` +
          `Start with SERVICE_TRACING_PARTITIONS=${stored} until they are caught up and none is stopped (loupe projections status), then change it; or rebuild the tracing read model (loupe projections rebuild tracing).`,
      );
    const at = first ?? { tx: 0n, seq: 0n };
    for (let i = 1; i < count; i++)
      await tx.query(sql.unsafe`
        UPDATE projection_checkpoints SET tx = ${at.tx}, seq = ${at.seq}, updated_at = now() WHERE name = ${tracingPartitionName(i)}`);
    await tx.query(
      sql.unsafe`DELETE FROM projection_checkpoints WHERE name ~ '^tracing\\.[0-9]+$' AND substring(name FROM 9)::int >= ${count}`,
    );
    await writeLayout(tx, count);
  });
};

/** After a rebuild swapped in tables replayed in one chain: every partition at its position, with its counters. */
export const layOutRebuiltTracing = async (tx: DatabaseTransactionConnection, count: number, at: { tx: bigint; seq: bigint }) => {
  for (let i = 1; i < count; i++)
    await tx.query(sql.unsafe`
      INSERT INTO projection_checkpoints (name, tx, seq, updated_at) VALUES (${tracingPartitionName(i)}, ${at.tx}, ${at.seq}, now())
      ON CONFLICT (name) DO UPDATE SET tx = excluded.tx, seq = excluded.seq, updated_at = now(),
        stopped_event_id = NULL, stopped_stream = NULL, stopped_type = NULL, stopped_tx = NULL, stopped_seq = NULL,
        stopped_error = NULL, stopped_since = NULL`);
  await tx.query(
    sql.unsafe`DELETE FROM projection_checkpoints WHERE name ~ '^tracing\\.[0-9]+$' AND substring(name FROM 9)::int >= ${count}`,
  );
  await writeLayout(tx, count);
};

/**
 * Inside every tracing batch: the tables must be laid out in this partition's count (the process
 * was started with the same SERVICE_TRACING_PARTITIONS as the one that laid them out). A process
 * left running with another count stops here instead of writing traces into the wrong partition.
 */
export const checkLayout = (stored: number, count: number): void => {
  if (stored !== count)
    throw new TracingLayoutError(
      `the tracing tables are now applied in ${stored} partitions and this process was started with SERVICE_TRACING_PARTITIONS=${count}: restart it with ${stored}`,
    );
};
