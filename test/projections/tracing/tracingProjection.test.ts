import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CommonQueryMethods } from 'slonik';
import type { ProjectCreated, ProjectDeleted } from '../../../domain/projects/events.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import type { SpanDeleted, SpansIngested, TraceDeleted } from '../../../domain/tracing/events.ts';
import { ingestStream, telemetryDeletionStream } from '../../../domain/tracing/tracingStream.ts';
import { findProjectByName } from '../../../projections/projects/projectQueries.ts';
import { listSpans } from '../../../projections/tracing/spanQueries.ts';
import { findTrace } from '../../../projections/tracing/traceQueries.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { inStream, projectionSpec } from '../../support/projectionSpec.ts';
import { batch, nanos, spanRecord } from '../../support/spanFixtures.ts';

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

test('given spans sent to a project that was deleted before they landed, then they are dropped with it', async () => {
  const gone: ProjectDeleted = { type: 'ProjectDeleted', data: { projectId, name: 'shop' } };
  await spec.given(project, inStream(projectStream('shop'), gone), spans).then((db) => findTrace(db, { traceId }), null);
});

test.run();
