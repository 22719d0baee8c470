import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CommonQueryMethods } from 'slonik';
import type { ProjectCreated, ProjectDeleted } from '../../../domain/projects/events.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import { sql } from 'slonik';
import type { SpanDeleted, SpansIngested, TraceDeleted, TracesExpired } from '../../../domain/tracing/events.ts';
import { ingestStream, telemetryDeletionStream } from '../../../domain/tracing/tracingStream.ts';
import { findProjectByName } from '../../../projections/projects/projectQueries.ts';
import { listSpans } from '../../../projections/tracing/spanQueries.ts';
import { findTrace } from '../../../projections/tracing/traceQueries.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { inStream, projectionSpec } from '../../support/projectionSpec.ts';
import { attrs, batch, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';

/** The tracing read model, given/when/then: spans in, spans, traces and their deletions out. */
const spec = projectionSpec(tracingProjection);

const projectId = '00000000-0000-4000-8000-0000000000a1';
const created: ProjectCreated = {
  type: 'ProjectCreated',
  data: { projectId, name: 'shop', description: null, gradientStartColor: '#5bdbff', gradientEndColor: '#1c76fc' },
};
const traceId = 'a'.repeat(32);
const root = spanRecord({ traceId, spanId: '1'.repeat(16), name: 'root', startTimeUnixNano: nanos('2024-01-01T00:00:00Z') });
const child = spanRecord({
  traceId,
  spanId: '2'.repeat(16),
  parentId: root.spanId,
  name: 'child',
  startTimeUnixNano: nanos('2024-01-01T00:00:00.5Z'),
});
const ingested: SpansIngested = { type: 'SpansIngested', data: { ...batch('shop', [root, child]), projectId } };
const project = inStream(projectStream('shop'), created);
const spans = inStream(ingestStream(projectId), ingested);

/** The project's spans, newest row first, as names with their parents. */
const spansOf = async (db: CommonQueryMethods) => {
  const p = await findProjectByName(db, 'shop');
  if (p === null) return null;
  return (await listSpans(db, { projectId: p.id, cursor: null, limit: 10 })).map((s) => ({ name: s.name, parent: s.parent_id }));
};

test('given a project and one request’s spans, then both spans are rows of the project and their trace exists', async () => {
  await spec.given(project, spans).then(spansOf, [
    { name: 'child', parent: root.spanId },
    { name: 'root', parent: null },
  ]);
  await spec.given(project, spans).thenMatches(
    (db) => findTrace(db, { traceId }),
    (trace) => assert.is(trace?.project_name, 'shop'),
  );
});

test('given the same span id twice, then the first in log order is kept', async () => {
  const again: SpansIngested = {
    type: 'SpansIngested',
    data: { ...batch('shop', [{ ...root, name: 'root again' }]), projectId },
  };
  await spec.given(project, spans, inStream(ingestStream(projectId), again)).then(spansOf, [
    { name: 'child', parent: root.spanId },
    { name: 'root', parent: null },
  ]);
});

test('given spans, when one span is deleted, then the other stays with its trace', async () => {
  const deleted: SpanDeleted = { type: 'SpanDeleted', data: { projectId, spanId: child.spanId } };
  await spec.given(project, spans, inStream(telemetryDeletionStream(projectId), deleted)).then(spansOf, [{ name: 'root', parent: null }]);
});

test('given spans, when their trace is deleted, then no span and no trace is left', async () => {
  const deleted: TraceDeleted = { type: 'TraceDeleted', data: { projectId, traceId } };
  const history = [project, spans, inStream(telemetryDeletionStream(projectId), deleted)];
  await spec.given(...history).then(spansOf, []);
  await spec.given(...history).then((db) => findTrace(db, { traceId }), null);
});

test('given traces in two sessions, when a policy run expires two of them, then exactly those go (spans, rollup, the session left without traces) and their spans are noted for erasure under the TracesExpired', async () => {
  const [a, b, c] = [newTraceId(), newTraceId(), newTraceId()];
  const turn = (id: string, session: string) =>
    spanRecord({ traceId: id, startTimeUnixNano: nanos('2024-01-01T00:00:00Z'), attributes: attrs({ 'session.id': session }) });
  const three: SpansIngested = {
    type: 'SpansIngested',
    data: { ...batch('shop', [turn(a, 'kept'), turn(b, 'kept'), turn(c, 'emptied')]), projectId },
  };
  const expired: TracesExpired = {
    type: 'TracesExpired',
    data: { projectId, policyId: '7', startedBefore: '2024-01-02T00:00:00.000Z', maxTraces: null, traceIds: [a, c, newTraceId()] },
  };
  await spec.given(project, inStream(ingestStream(projectId), three), inStream(telemetryDeletionStream(projectId), expired)).then(
    async (db) => ({
      traces: await db.anyFirst(sql.unsafe`SELECT trace_id FROM traces`),
      sessions: await db.anyFirst(sql.unsafe`SELECT session_id FROM sessions`),
      rolledUp: await db.oneFirst(sql.unsafe`SELECT coalesce(sum(trace_count), 0)::int FROM trace_metric_hours`),
      erasures: await db.any(sql.unsafe`
        SELECT e.type, x.trace_id FROM tracing_erasures x JOIN events e ON e.event_id = x.deletion_event ORDER BY x.trace_id`),
    }),
    {
      traces: [b],
      sessions: ['kept'],
      rolledUp: 1,
      erasures: [a, c].sort().map((trace_id) => ({ type: 'TracesExpired', trace_id })),
    },
  );
});

test('given spans sent to a project that was deleted before they landed, then they are dropped with it', async () => {
  const gone: ProjectDeleted = { type: 'ProjectDeleted', data: { projectId, name: 'shop' } };
  await spec.given(project, inStream(projectStream('shop'), gone), spans).then((db) => findTrace(db, { traceId }), null);
});

test.run();
