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
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { freshMigratedDatabase, type TestDatabase } from '../../support/database.ts';
import { createPostgresEventStore } from '../../../domain/eventstore/postgresEventStore.ts';
import type { EventStore } from '../../../domain/eventstore/types.ts';
import { attrs, batch, newTraceId, spanRecord } from '../../support/spanFixtures.ts';

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
const note = (target: AnnotationRecord['target'], targetId: string): AnnotationRecord => ({
  target,
  targetId,
  documentPosition: target === 'document' ? 0 : null,
  name: 'judged',
  annotatorKind: 'CODE',
  label: 'x',
  score: null,
  explanation: null,
  metadata: {},
  identifier: '',
});

/** Spans across projects (late spans of a trace sent elsewhere, sessions shared), annotations on all of it, every kind of deletion. */
const writeHistory = async (store: EventStore) => {
  await createProject(store, { name: 'alpha', description: null }, context);
  const traces = Array.from({ length: 12 }, () => newTraceId());
  const annotations: AnnotationRecord[] = [];
  for (let i = 0; i < 12; i++) {
    const root = spanRecord({ traceId: traces[i]!, attributes: attrs({ 'session.id': `s${i % 3}` }) });
    const child = spanRecord({
      traceId: traces[i]!,
      parentId: root.spanId,
      attributes: i % 5 === 0 ? attrs({ 'session.id': `late-${i}` }) : {},
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
    if (i > 2)
      await ingestSpans(
        store,
        [batch('beta', [spanRecord({ traceId: traces[i - 3]!, attributes: attrs({ 'session.id': 'moved?' }) })])],
        context,
      );
  }
  annotations.push(
    note('session', 's0'),
    note('session', 's1'),
    note('session', 's2'),
    note('session', 'moved?'),
    note('session', 'never'),
    note('span', 'ffffffffffffffff'),
  );
  await recordAnnotations(store, { type: 'RecordAnnotations', source: 'API', annotations, asNotes: false }, context);
  const alpha = await idOf(store, 'alpha');
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
      sql.unsafe`SELECT s.span_id, s.trace_id, p.project_id::text AS project FROM spans s JOIN projects p ON p.id = s.project_id`,
    ),
    await pairs(
      db.pool,
      sql.unsafe`SELECT s.span_id, s.trace_id, t.project_id::text AS project FROM annotation_span_scope s JOIN annotation_trace_scope t USING (trace_id)`,
    ),
  );
  assert.equal(
    await pairs(
      db.pool,
      sql.unsafe`SELECT t.trace_id, p.project_id::text AS project, se.session_id FROM traces t JOIN projects p ON p.id = t.project_id LEFT JOIN sessions se ON se.id = t.session_id`,
    ),
    await pairs(db.pool, sql.unsafe`SELECT trace_id, project_id::text AS project, session_id FROM annotation_trace_scope`),
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
  // (`moved?` came only on spans of traces that had a session already: no session of that id exists.)
  assert.equal([...orphans].sort(), ['session:moved?', 'session:never', 'span:ffffffffffffffff']);
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

test.run();
