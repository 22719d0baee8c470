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
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { attrs, batch, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { context, dumpTracing, tracingHarness, type Harness } from './tracingHarness.ts';

const test = suite<{ h: Harness }>('tracing projection: rebuild and replay', {} as { h: Harness });
test.before.each(async (ctx) => {
  ctx.h = await tracingHarness();
});
test.after.each(async (ctx) => {
  await ctx.h.db.close();
});

const idOf = async (h: Harness, name: string) => {
  const s = await loadProject(h.store, name);
  if (s.status !== 'active') throw new Error('not active');
  return s.projectId;
};

/** A history with everything the projector does: ingest, duplicates, sessions across projects, every kind of deletion (an expiry too), a re-created project. */
const writeHistory = async (h: Harness) => {
  await createProject(h.store, { name: 'alpha', description: 'a', gradientStartColor: '#000000' }, context);
  const traces = Array.from({ length: 12 }, () => newTraceId());
  for (let i = 0; i < 12; i++) {
    const root = spanRecord({
      traceId: traces[i]!,
      startTimeUnixNano: nanos('2024-01-01T00:00:00Z', BigInt(i) * 1_000_000_000n),
      endTimeUnixNano: nanos('2024-01-01T00:00:00Z', BigInt(i) * 1_000_000_000n + 500_000n),
      attributes: attrs({ 'session.id': `s${i % 3}`, 'input.value': `in ${i}`, 'output.value': `out ${i}` }),
    });
    const child = spanRecord({
      traceId: traces[i]!,
      parentId: root.spanId,
      spanKind: 'LLM',
      status: { code: i % 4 === 0 ? 'ERROR' : 'OK', message: '' },
      attributes: attrs({ 'llm.token_count.prompt': i, 'llm.token_count.completion': 2 * i, metadata: `{"i":${i}}` }),
    });
    const project = i % 2 === 0 ? 'alpha' : 'beta';
    await ingestSpans(h.store, [batch(project, i === 5 ? [root, child, root] : [root, child])], context);
    // a late span of an earlier trace, sent to the other project
    if (i > 2) await ingestSpans(h.store, [batch('beta', [spanRecord({ traceId: traces[i - 3]! })])], context);
    // a policy run, early in the log, after the late span of the trace it expires
    if (i === 4)
      await deleteTelemetry(
        h.store,
        'alpha',
        {
          type: 'ExpireTraces',
          projectId: await idOf(h, 'alpha'),
          policyId: 'default',
          startedBefore: '2024-01-02T00:00:00.000Z',
          maxTraces: null,
          traceIds: [traces[0]!],
        },
        context,
      );
  }
  await updateProject(h.store, 'alpha', { projectId: await idOf(h, 'alpha'), description: 'changed' }, context);
  const alpha = await idOf(h, 'alpha');
  await deleteTelemetry(h.store, 'alpha', { type: 'DeleteTraces', projectId: alpha, traceIds: [traces[0]!, traces[2]!] }, context);
  await deleteTelemetry(h.store, 'alpha', { type: 'DeleteSessions', projectId: alpha, sessionIds: ['s1'] }, context);
  await ingestSpans(h.store, [batch('gamma', [spanRecord({ traceId: newTraceId(), attributes: attrs({ 'session.id': 's0' }) })])], context);
  await deleteProject(h.store, 'gamma', { projectId: await idOf(h, 'gamma'), defaultProjectName: 'default' }, context);
  await ingestSpans(h.store, [batch('gamma', [spanRecord({ traceId: newTraceId() })])], context);
};

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
