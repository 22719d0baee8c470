import { sql, type DatabasePool } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { recordAnnotations } from '../../../domain/annotations/recordAnnotations.ts';
import type { AnnotationRecord } from '../../../domain/annotations/events.ts';
import { createProject, deleteProject } from '../../../domain/projects/projectCommands.ts';
import { loadProject } from '../../../domain/projects/loadProject.ts';
import { deleteTelemetry } from '../../../domain/tracing/deleteTelemetry.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { annotationsProjection } from '../../../projections/annotations/annotationsProjection.ts';
import { createProjectionRunner } from '../../../projections/projectionRunner.ts';
import { rebuildProjection } from '../../../projections/rebuildProjection.ts';
import { runMigrationSql } from '../../../projections/migrate.ts';
import { SCORED_TARGETS_BACKFILL } from '../../../projections/annotations/targetStart.ts';
import { micros } from '../../../projections/tracing/micros.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { freshMigratedDatabase, type TestDatabase } from '../../support/database.ts';
import { createPostgresEventStore } from '../../../domain/eventstore/postgresEventStore.ts';
import type { EventStore } from '../../../domain/eventstore/types.ts';
import { annotationScoreBuckets, type Bucket, type MetricWindow } from '../../../projections/metrics/metricQueries.ts';
import { attrs, batch, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';

type Ctx = { db: TestDatabase; store: EventStore };
const test = suite<Ctx>('annotations projection: its own scope agrees with the tracing read model', {} as Ctx);
test.before.each(async (ctx) => {
  ctx.db = await freshMigratedDatabase();
  ctx.store = createPostgresEventStore(ctx.db.pool);
});
test.after.each(async (ctx) => {
  await ctx.db.close();
});

const context = { actor: 'test', requestId: null, now: () => new Date('2024-02-01T00:00:00Z') };
const idOf = async (store: EventStore, name: string) => {
  const s = await loadProject(store, name);
  if (s.status !== 'active') throw new Error('not active');
  return s.projectId;
};
// Scores in quarters (0, 0.25, … 1, or none) under two names: their means are exact in float8, whatever the order summed.
let scored = 0;
const note = (target: AnnotationRecord['target'], targetId: string): AnnotationRecord => ({
  target,
  targetId,
  documentPosition: target === 'document' ? 0 : null,
  name: scored % 2 === 0 ? 'judged' : 'graded',
  annotatorKind: 'CODE',
  label: 'x',
  score: scored++ % 6 === 5 ? null : (scored % 5) * 0.25,
  explanation: null,
  metadata: {},
  identifier: '',
});

/** The i-th trace's time, `minutes` off its hour (2024-01-01 plus i hours, so traces fall in different hours and days). */
const when = (i: number, minutes: number) => {
  const start = new Date(Date.parse('2024-01-01T00:00:00Z') + i * 5 * 3_600_000 + minutes * 60_000).toISOString();
  return { startTimeUnixNano: nanos(start, BigInt(i) * 1_001n), endTimeUnixNano: nanos('2024-01-05T00:00:00Z') };
};

/**
 * Spans across projects (late spans of a trace sent elsewhere, some earlier than the trace's
 * first, sessions shared), scored annotations on all of it before and after their targets, every
 * kind of deletion, a span deleted from the front of its trace.
 */
const writeHistory = async (store: EventStore) => {
  await createProject(store, { name: 'alpha', description: null }, context);
  const traces = Array.from({ length: 12 }, () => newTraceId());
  const annotations: AnnotationRecord[] = [];
  const lateSpans: string[] = []; // trace i's late span at i (from the third on)
  for (let i = 0; i < 12; i++) {
    // A GenAI conversation id is a session too (the tracing projector derives it): trace 4's root
    // brings one; children of other traces send one that comes too late for their trace.
    const root = spanRecord({
      traceId: traces[i]!,
      attributes:
        i === 4 ? attrs({ 'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': 'conv-4' }) : attrs({ 'session.id': `s${i % 3}` }),
      ...when(i, 10),
    });
    const child = spanRecord({
      traceId: traces[i]!,
      parentId: root.spanId,
      attributes:
        i % 5 === 0
          ? attrs({ 'session.id': `late-${i}` })
          : i % 5 === 1
            ? attrs({ 'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': `conv-${i}` })
            : {},
      ...when(i, 5),
    });
    // half of the annotations come before their spans
    if (i % 2 === 0)
      await recordAnnotations(
        store,
        {
          type: 'RecordAnnotations',
          source: 'API',
          annotations: [note('span', root.spanId), note('document', child.spanId)],
          asNotes: false,
        },
        context,
      );
    await ingestSpans(store, [batch(i % 2 === 0 ? 'alpha' : 'beta', [root, child])], context);
    if (i % 2 === 1) annotations.push(note('span', root.spanId), note('document', child.spanId));
    annotations.push(note('trace', traces[i]!), note('span', child.spanId));
    if (i > 2) {
      // a late span of an earlier trace, for every third one before its first span (into the hour before)
      const late = spanRecord({
        traceId: traces[i - 3]!,
        attributes: attrs({ 'session.id': 'moved?' }),
        ...when(i - 3, (i - 3) % 3 === 0 ? -20 : 30),
      });
      lateSpans.push(late.spanId);
      annotations.push(note('span', late.spanId));
      await ingestSpans(store, [batch('beta', [late])], context);
    }
  }
  annotations.push(
    note('session', 's0'),
    note('session', 's1'),
    note('session', 's2'),
    note('session', 'moved?'),
    note('session', 'conv-4'),
    note('session', 'conv-6'),
    note('session', 'never'),
    note('span', 'ffffffffffffffff'),
  );
  await recordAnnotations(store, { type: 'RecordAnnotations', source: 'API', annotations, asNotes: false }, context);
  const alpha = await idOf(store, 'alpha');
  // Late spans of alpha's traces 6 (its first: the trace starts later again) and 4 (not its first) deleted.
  await deleteTelemetry(store, 'alpha', { type: 'DeleteSpans', projectId: alpha, spanIds: [lateSpans[6]!, lateSpans[4]!] }, context);
  await deleteTelemetry(store, 'alpha', { type: 'DeleteTraces', projectId: alpha, traceIds: [traces[0]!, traces[2]!] }, context);
  await deleteTelemetry(store, 'alpha', { type: 'DeleteSessions', projectId: alpha, sessionIds: ['s1'] }, context);
  await ingestSpans(store, [batch('gamma', [spanRecord({ traceId: newTraceId(), attributes: attrs({ 'session.id': 's0' }) })])], context);
  await deleteProject(store, 'gamma', { projectId: await idOf(store, 'gamma'), defaultProjectName: 'default' }, context);
  const beta = await idOf(store, 'beta');
  await deleteProject(store, 'beta', { projectId: beta, defaultProjectName: 'default' }, context);
};

const pairs = async (pool: DatabasePool, query: ReturnType<typeof sql.unsafe>) =>
  [...(await pool.any(query))].map((r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? v.toString() : v))).sort();

test('after ingest, late spans, annotations and every deletion, span, trace and session scopes equal the tracing rows', async ({
  db,
  store,
}) => {
  await writeHistory(store);
  await createProjectionRunner({ store, pool: db.pool, projections: [tracingProjection, annotationsProjection] }).catchUp();
  assert.equal(
    await pairs(
      db.pool,
      sql.unsafe`SELECT s.span_id, s.trace_id, p.project_id::text AS project, ${micros('s.start_time')} AS start
        FROM spans s JOIN projects p ON p.id = s.project_id`,
    ),
    await pairs(
      db.pool,
      sql.unsafe`SELECT s.span_id, s.trace_id, t.project_id::text AS project, ${micros('s.start_time')} AS start
        FROM annotation_span_scope s JOIN annotation_trace_scope t USING (trace_id)`,
    ),
  );
  assert.equal(
    await pairs(
      db.pool,
      sql.unsafe`SELECT t.trace_id, p.project_id::text AS project, se.session_id, ${micros('t.start_time')} AS start
        FROM traces t JOIN projects p ON p.id = t.project_id LEFT JOIN sessions se ON se.id = t.session_id`,
    ),
    await pairs(
      db.pool,
      sql.unsafe`SELECT trace_id, project_id::text AS project, session_id, ${micros('start_time')} AS start FROM annotation_trace_scope`,
    ),
  );
  assert.equal(
    await pairs(
      db.pool,
      sql.unsafe`SELECT s.session_id, p.project_id::text AS project FROM sessions s JOIN projects p ON p.id = s.project_id`,
    ),
    await pairs(db.pool, sql.unsafe`SELECT session_id, project_id::text AS project FROM annotation_session_scope`),
  );
  // Every annotation left is on a target that is still there, or on one that never arrived.
  const orphans = await db.pool.anyFirst(sql.unsafe`
    SELECT a.target || ':' || a.target_id FROM annotations a WHERE NOT (
      (a.target IN ('span', 'document') AND EXISTS (SELECT 1 FROM spans s WHERE s.span_id = a.target_id))
      OR (a.target = 'trace' AND EXISTS (SELECT 1 FROM traces t WHERE t.trace_id = a.target_id))
      OR (a.target = 'session' AND EXISTS (SELECT 1 FROM sessions s WHERE s.session_id = a.target_id)))`);
  // (`moved?` and `conv-6` came only on spans of traces that had a session already: no session of that id exists.)
  assert.equal([...orphans].sort(), ['session:conv-6', 'session:moved?', 'session:never', 'span:ffffffffffffffff']);
});

test('a rebuild of the annotations read model alone equals the live one, row for row', async ({ db, store }) => {
  await writeHistory(store);
  await createProjectionRunner({ store, pool: db.pool, projections: [tracingProjection, annotationsProjection] }).catchUp();
  const dump = async () => {
    const out: Record<string, string[]> = {};
    for (const table of annotationsProjection.tables)
      out[table] = await pairs(db.pool, sql.unsafe`SELECT * FROM ${sql.identifier([table])}`);
    return out;
  };
  const live = await dump();
  assert.ok(live.annotations!.length > 10);
  await rebuildProjection(db.pool, store, annotationsProjection, {
    batchSize: 7,
    storeInTransaction: (tx) => createPostgresEventStore(tx),
  });
  assert.equal(await dump(), live);
});

/** The score series as it was computed before the annotations kept their target's start: a join of each annotation to its span or trace row. */
const joinedScoreBuckets = (pool: DatabasePool, w: MetricWindow) =>
  pool.any(sql.unsafe`
    WITH scored AS (
      SELECT a.name, s.start_time, a.score FROM annotations a JOIN spans s ON s.span_id = a.target_id
      WHERE a.target = 'span' AND a.score IS NOT NULL AND s.project_id = ${w.projectRowid}
        AND s.start_time >= ${w.start}::timestamptz AND s.start_time < ${w.end}::timestamptz
      UNION ALL
      SELECT a.name, t.start_time, a.score FROM annotations a JOIN traces t ON t.trace_id = a.target_id
      WHERE a.target = 'trace' AND a.score IS NOT NULL AND t.project_id = ${w.projectRowid}
        AND t.start_time >= ${w.start}::timestamptz AND t.start_time < ${w.end}::timestamptz
    )
    SELECT name, (extract(epoch FROM date_bin(${`${{ minute: 60, hour: 3600, day: 86_400 }[w.bucket]} seconds`}::interval, start_time, 'epoch'::timestamptz)) * 1000000)::bigint AS bucket_us,
      avg(score)::float8 AS mean, count(*)::int AS count
    FROM scored GROUP BY 1, 2 ORDER BY 1, 2`);

test('the score series read from the annotations alone equals the join to the tracing rows it replaced, in every bucket size', async ({
  db,
  store,
}) => {
  await writeHistory(store);
  await createProjectionRunner({ store, pool: db.pool, projections: [tracingProjection, annotationsProjection] }).catchUp();
  const alpha = Number(await db.pool.oneFirst(sql.unsafe`SELECT id FROM projects WHERE name = 'alpha'`));
  const windows: [string, string, Bucket][] = [
    ['2023-12-31T00:00:00Z', '2024-01-05T00:00:00Z', 'day'],
    ['2023-12-31T23:00:00Z', '2024-01-03T07:30:00Z', 'hour'],
    ['2024-01-01T09:40:00Z', '2024-01-01T20:50:00Z', 'minute'],
    ['2024-01-02T05:00:00Z', '2024-01-02T06:00:00Z', 'minute'],
  ];
  let points = 0;
  for (const [start, end, bucket] of windows) {
    const w = { projectRowid: alpha, start, end, bucket };
    const expected = await joinedScoreBuckets(db.pool, w);
    points += expected.length;
    assert.equal(await annotationScoreBuckets(db.pool, w), expected, `${start} to ${end} in ${bucket}s`);
  }
  assert.ok(points > 12, `the history scores enough targets to compare (${points} points)`);
});

test('the migration that added the target start fills existing rows as the projector keeps them live', async ({ db, store }) => {
  await writeHistory(store);
  await createProjectionRunner({ store, pool: db.pool, projections: [tracingProjection, annotationsProjection] }).catchUp();
  const dump = async () => ({
    spans: await pairs(db.pool, sql.unsafe`SELECT span_id, ${micros('start_time')} AS start FROM annotation_span_scope`),
    traces: await pairs(db.pool, sql.unsafe`SELECT trace_id, ${micros('start_time')} AS start FROM annotation_trace_scope`),
    annotations: await pairs(
      db.pool,
      sql.unsafe`SELECT id, target_project::text AS project, ${micros('target_start')} AS start FROM annotations`,
    ),
  });
  const live = await dump();
  const placed = live.annotations.filter((a) => !a.includes('"start":null')).length;
  assert.ok(placed > 8, `annotations placed: ${placed}`);
  // As before the migration: no times.
  await db.pool.query(sql.unsafe`UPDATE annotation_span_scope SET start_time = NULL`);
  await db.pool.query(sql.unsafe`UPDATE annotation_trace_scope SET start_time = NULL`);
  await db.pool.query(sql.unsafe`UPDATE annotations SET target_project = NULL, target_start = NULL`);
  await runMigrationSql(db.pool, { id: 'backfill', sql: SCORED_TARGETS_BACKFILL });
  assert.equal(await dump(), live);
});

test.run();
