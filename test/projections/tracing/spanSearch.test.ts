import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { deleteProject } from '../../../domain/projects/projectCommands.ts';
import { loadProject } from '../../../domain/projects/loadProject.ts';
import { deleteTelemetry } from '../../../domain/tracing/deleteTelemetry.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { rebuildProjection } from '../../../projections/rebuildProjection.ts';
import { indexSpanSearch, spanSearchPending } from '../../../projections/tracing/indexSpanSearch.ts';
import { createSpanSearchIndexer } from '../../../projections/tracing/spanSearchIndexer.ts';
import { spanTextMatches } from '../../../projections/tracing/spanTextSearch.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { attrs, batch, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { context, tracingHarness, type Harness } from './tracingHarness.ts';

const test = suite<{ h: Harness }>('span search: words written behind the tracing projection', {} as { h: Harness });
test.before.each(async (ctx) => {
  ctx.h = await tracingHarness();
});
test.after.each(async (ctx) => {
  await ctx.h.db.close();
});

const found = async (h: Harness, search: string) => [
  ...(await h.db.pool.anyFirst(
    sql.type(z.object({ name: z.string() }))`SELECT s.name FROM spans s WHERE ${spanTextMatches('s', search)} ORDER BY s.name`,
  )),
];

/** Every span committed now gets its words, in steps of `chunk`. */
const indexAll = async (h: Harness, chunk = 2) => {
  while (await spanSearchPending(h.db.pool)) await indexSpanSearch(h.db.pool, chunk);
};

const projectId = async (h: Harness, name: string) => {
  const s = await loadProject(h.store, name);
  if (s.status !== 'active') throw new Error(`${name} is not active`);
  return s.projectId;
};

const span = (name: string, input: string, traceId = newTraceId()) =>
  spanRecord({ traceId, name, attributes: attrs({ 'input.value': input, 'output.value': `answer to ${name}` }) });

test('spans are listed before their words are written, and found once they are', async ({ h }) => {
  await ingestSpans(h.store, [batch('alpha', [span('ask', 'where is my REFUND'), span('chat', 'hello there')])], context);
  await h.project();
  assert.equal(await found(h, 'refund'), [], 'the spans are there, their words not yet');
  const first = await indexSpanSearch(h.db.pool, 1);
  assert.equal(first, { indexed: 1, more: true });
  await indexAll(h);
  assert.equal(await found(h, 'refund'), ['ask']);
  assert.equal(await found(h, '"answer to chat"'), ['chat']);
  assert.equal(await found(h, 'hello -there'), []);
  assert.equal(await indexSpanSearch(h.db.pool, 10), { indexed: 0, more: false });
});

test('deleting spans, traces, sessions and projects takes their words with them, and the rest is indexed once', async ({ h }) => {
  const kept = newTraceId();
  const gone = newTraceId();
  await ingestSpans(
    h.store,
    [
      batch('alpha', [
        span('kept', 'secretword one', kept),
        span('gone trace', 'secretword two', gone),
        spanRecord({
          traceId: newTraceId(),
          name: 'gone session',
          attributes: attrs({ 'session.id': 's1', 'input.value': 'secretword three' }),
        }),
      ]),
      batch('beta', [span('gone project', 'secretword four')]),
    ],
    context,
  );
  await h.project();
  await indexAll(h);
  assert.equal(await found(h, 'secretword'), ['gone project', 'gone session', 'gone trace', 'kept']);
  // The newest span goes too: the indexer reads the spans above the highest row left again.
  const alpha = await projectId(h, 'alpha');
  await deleteTelemetry(h.store, 'alpha', { type: 'DeleteTraces', projectId: alpha, traceIds: [gone] }, context);
  await deleteTelemetry(h.store, 'alpha', { type: 'DeleteSessions', projectId: alpha, sessionIds: ['s1'] }, context);
  await deleteProject(h.store, 'beta', { projectId: await projectId(h, 'beta'), defaultProjectName: 'default' }, context);
  await ingestSpans(h.store, [batch('alpha', [span('late', 'secretword five')])], context);
  await h.project();
  await indexAll(h);
  assert.equal(await found(h, 'secretword'), ['kept', 'late']);
  const rows = await h.db.pool.one(sql.type(z.object({ words: z.number(), orphans: z.number(), spans: z.number() }))`
    SELECT (SELECT count(*)::int FROM span_search) AS words,
      (SELECT count(*)::int FROM span_search w WHERE NOT EXISTS (SELECT 1 FROM spans s WHERE s.id = w.span_rowid)) AS orphans,
      (SELECT count(*)::int FROM spans) AS spans`);
  assert.equal(rows, { words: 2, orphans: 0, spans: 2 }, 'no words of a deleted span are left');
});

test('a rebuild swaps in an empty table that the indexer fills with the live words again', async ({ h }) => {
  for (let i = 0; i < 5; i++) await ingestSpans(h.store, [batch('alpha', [span(`s${i}`, `word${i} common`)])], context);
  await h.project();
  await indexAll(h, 3);
  const words = async () => [...(await h.db.pool.any(sql.unsafe`SELECT span_rowid, words::text FROM span_search ORDER BY 1`))];
  const live = await words();
  assert.is(live.length, 5);
  await rebuildProjection(h.db.pool, h.store, tracingProjection, { storeInTransaction: h.storeInTransaction });
  assert.equal(await words(), []);
  assert.equal(await found(h, 'common'), [], 'search trails a rebuild too');
  await indexAll(h);
  assert.equal(await words(), live);
  assert.equal(await found(h, 'word3'), ['s3']);
});

/** Polls search until it finds something; how long that took. */
const foundAfterMs = async (h: Harness, search: string, timeoutMs: number) => {
  const started = Date.now();
  while ((await found(h, search)).length === 0) {
    if (Date.now() - started > timeoutMs) throw new Error(`${search} not found after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
};

test('the indexer gives way while the projection is busy, except to spans that waited too long', async ({ h }) => {
  await ingestSpans(h.store, [batch('alpha', [span('first', 'quiet moment')])], context);
  await h.project();
  const idle = createSpanSearchIndexer({ pool: h.db.pool, chunk: 100, busy: () => false, idleMs: 20 });
  idle.start();
  try {
    await foundAfterMs(h, 'quiet', 5000);
  } finally {
    await idle.stop();
  }
  await ingestSpans(h.store, [batch('alpha', [span('second', 'busy moment')])], context);
  await h.project();
  const busy = createSpanSearchIndexer({ pool: h.db.pool, chunk: 100, busy: () => true, idleMs: 20, maxDeferMs: 600 });
  busy.start();
  try {
    const after = await foundAfterMs(h, 'busy', 10_000);
    assert.ok(after >= 550, `a busy projection kept the words waiting (${after} ms)`);
  } finally {
    await busy.stop();
  }
});

test.run();
