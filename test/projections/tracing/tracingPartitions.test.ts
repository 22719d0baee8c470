import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { comparePosition } from '../../../domain/eventstore/types.ts';
import { createProjectionRunner } from '../../../projections/projectionRunner.ts';
import { rebuildProjection } from '../../../projections/rebuildProjection.ts';
import { ensureTracingLayout } from '../../../projections/tracing/tracingLayout.ts';
import { tracingPartition, tracingPartitions, tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { dumpTracing, tracingHarness, type Harness } from './tracingHarness.ts';
import { writeHistory } from './tracingHistory.ts';

const test = suite<{ h: Harness }>('tracing projection in partitions (issue 40)', {} as { h: Harness });
test.before.each(async (ctx) => {
  ctx.h = await tracingHarness();
});
test.after.each(async (ctx) => {
  await ctx.h.db.close();
});

/** The tables without the partitions' own counters (every partition's equal partition 0's once caught up). */
const withoutPartitionRows = (dump: Record<string, unknown[]>): Record<string, unknown[]> => ({
  ...dump,
  tracing_ids: (dump.tracing_ids as { kind: string }[]).filter((r) => !r.kind.includes('.') && r.kind !== 'partitions'),
});

const caughtUp = async (h: Harness, names: readonly string[]) => {
  const head = await h.store.headPosition();
  for (let i = 0; i < 3000; i++) {
    const rows = await h.db.pool.any(
      sql.type(
        z.object({ tx: z.bigint(), seq: z.bigint() }),
      )`SELECT tx, seq FROM projection_checkpoints WHERE name = ANY(${sql.array([...names], 'text')})`,
    );
    if (rows.length === names.length && rows.every((r) => comparePosition(r, head) >= 0)) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the partitions did not catch up');
};

test("applied in three partitions at once, the tables equal one chain's row for row (ids included)", async ({ h }) => {
  await writeHistory(h);
  await ensureTracingLayout(h.db.pool, 3);
  // Three runners, as three processes would be: each applies its partition whenever it gets to it.
  const runners = [0, 1, 2].map((i) =>
    createProjectionRunner({
      store: h.store,
      pool: h.db.pool,
      projections: [tracingPartition(i, 3)],
      batchSize: 2 + i,
      idleMs: 5,
    }),
  );
  await Promise.all(runners.map((r) => r.start()));
  try {
    await caughtUp(h, ['tracing', 'tracing.1', 'tracing.2']);
  } finally {
    await Promise.all(runners.map((r) => r.stop()));
  }
  assert.equal(
    runners.map((r) => r.projections()[0]?.stop ?? null),
    [null, null, null],
  );
  const partitioned = withoutPartitionRows(await dumpTracing(h.db.pool));
  assert.ok((partitioned.spans?.length ?? 0) > 10 && (partitioned.sessions?.length ?? 0) > 0, 'spans and sessions were written');
  const ids = await h.db.pool.any(
    sql.type(z.object({ kind: z.string(), last: z.bigint() }))`SELECT kind, last FROM tracing_ids ORDER BY kind`,
  );
  const last = (kind: string) => ids.find((r) => r.kind === kind)?.last;
  assert.equal([last('span.1'), last('span.2')], [last('span'), last('span')], 'every partition counted every span');
  await rebuildProjection(h.db.pool, h.store, tracingProjection, { batchSize: 5, storeInTransaction: h.storeInTransaction });
  assert.equal(withoutPartitionRows(await dumpTracing(h.db.pool)), partitioned);
});

test('one runner applying every partition in one pack gives the same rows, and a changed count is refused while they are apart', async ({
  h,
}) => {
  await writeHistory(h);
  await ensureTracingLayout(h.db.pool, 2);
  const runner = createProjectionRunner({ store: h.store, pool: h.db.pool, projections: tracingPartitions(2), batchSize: 4 });
  await runner.catchUp();
  const partitioned = withoutPartitionRows(await dumpTracing(h.db.pool));
  // All at the head: a new count is laid out at once, every partition there.
  await ensureTracingLayout(h.db.pool, 3);
  const names = (await h.db.pool.anyFirst(
    sql.unsafe`SELECT name FROM projection_checkpoints WHERE name LIKE 'tracing%' ORDER BY name`,
  )) as string[];
  assert.equal(names, ['tracing', 'tracing.1', 'tracing.2']);
  await h.db.pool.query(sql.unsafe`UPDATE projection_checkpoints SET tx = 0, seq = 0 WHERE name = 'tracing.2'`);
  await ensureTracingLayout(h.db.pool, 2).then(
    () => assert.unreachable('partitions apart must not be repartitioned'),
    (error: Error) => assert.match(error.message, 'not at one position'),
  );
  await rebuildProjection(h.db.pool, h.store, tracingProjection, { batchSize: 5, storeInTransaction: h.storeInTransaction });
  assert.equal(withoutPartitionRows(await dumpTracing(h.db.pool)), partitioned);
});

test.run();
