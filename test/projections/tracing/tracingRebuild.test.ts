import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createProject, deleteProject, updateProject } from '../../../domain/projects/projectCommands.ts';
import { loadProject } from '../../../domain/projects/loadProject.ts';
import { deleteTelemetry } from '../../../domain/tracing/deleteTelemetry.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import type { Projection } from '../../../projections/projection.ts';
import { applyBatch } from '../../../projections/projectionRunner.ts';
import { rebuildProjection } from '../../../projections/rebuildProjection.ts';
import { createProjectionRunner } from '../../../projections/projectionRunner.ts';
import { ensureTracingLayout } from '../../../projections/tracing/tracingLayout.ts';
import { tracingPartition, tracingPartitions, tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { comparePosition } from '../../../domain/eventstore/types.ts';
import { attrs, batch, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { context, dumpTracing, tracingHarness, type Harness } from './tracingHarness.ts';

const test = suite<{ h: Harness }>('tracing projection: rebuild and replay', {} as { h: Harness });
test.before.each(async (ctx) => {
  ctx.h = await tracingHarness();
});
test.after.each(async (ctx) => {
  await ctx.h.db.close();
});

import { writeHistory } from './tracingHistory.ts';

test('the rebuilt tables equal the live ones row for row (ids included), whatever the batch sizes', async ({ h }) => {
  await writeHistory(h);
  await h.project(3);
  const live = await dumpTracing(h.db.pool);
  assert.ok((live.spans?.length ?? 0) > 10, 'the history left spans behind');
  assert.ok((live.sessions?.length ?? 0) > 0, 'and sessions');
  await rebuildProjection(h.db.pool, h.store, tracingProjection, {
    batchSize: 7,
    storeInTransaction: h.storeInTransaction,
  });
  assert.equal(await dumpTracing(h.db.pool), live);
});

test('applying the same events twice leaves the rows as applying them once', async ({ h }) => {
  await writeHistory(h);
  await h.project();
  const once = await dumpTracing(h.db.pool);
  const events = await h.readEverything();
  await h.db.pool.transaction((tx) => tracingProjection.apply(tx, events));
  const twice = await dumpTracing(h.db.pool);
  // The id counters move on (ids of rows that were not inserted are simply unused); every row stays.
  delete once.tracing_ids;
  delete twice.tracing_ids;
  assert.equal(twice, once);
});

test('a batch that dies before its commit leaves nothing, and the retry gives the rows of a run that never died', async ({ h }) => {
  await writeHistory(h);
  const events = await h.readEverything();
  const half = Math.floor(events.length / 2);
  await h.db.pool.transaction((tx) => applyBatch(tx, [tracingProjection], events.slice(0, half)));
  const before = await dumpTracing(h.db.pool);
  // Every row of the second half written, then the process is gone before COMMIT.
  const dying: Projection = {
    ...tracingProjection,
    apply: async (tx, batch) => {
      await tracingProjection.apply(tx, batch);
      assert.ok(Number(await tx.oneFirst(sql.unsafe`SELECT count(*) FROM spans`)) > (before.spans?.length ?? 0));
      throw new Error('killed before commit');
    },
  };
  await h.db.pool
    .transaction((tx) => applyBatch(tx, [dying], events.slice(half)))
    .then(
      () => assert.unreachable('the batch must fail'),
      (error: Error) => assert.match(error.message, 'killed before commit'),
    );
  assert.equal(await dumpTracing(h.db.pool), before, 'nothing of the dead batch is left, id counters included');
  await h.project(4);
  const recovered = await dumpTracing(h.db.pool);
  await rebuildProjection(h.db.pool, h.store, tracingProjection, {
    batchSize: 50,
    storeInTransaction: h.storeInTransaction,
  });
  assert.equal(await dumpTracing(h.db.pool), recovered);
});

test.run();
