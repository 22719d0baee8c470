import { sql, type CommonQueryMethods } from 'slonik';
import { test } from 'uvu';
import { z } from 'zod';
import type { AnnotationRecord } from '../../../domain/annotations/events.ts';
import type { DomainEvent } from '../../../domain/decider.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import type { SpanRecord } from '../../../domain/tracing/events.ts';
import { annotationsProjection } from '../../../projections/annotations/annotationsProjection.ts';
import { annotationScoreBuckets } from '../../../projections/metrics/metricQueries.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { inStream, projectionSpec } from '../../support/projectionSpec.ts';
import { batch, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { projectCreated } from '../../support/annotationFixtures.ts';

// The annotations read model keeps each scored span or trace annotation's target project and
// start time (projections/annotations/targetStart.ts), from its own record of the targets: the
// metrics page's score series reads them instead of joining the tracing rows.

const P = '11111111-1111-4111-8111-111111111111';
const Q = '22222222-2222-4222-8222-222222222222';
const created = projectCreated;
const traceId = newTraceId();
const at = (iso: string, extraNanos = 0n) => ({
  startTimeUnixNano: nanos(iso, extraNanos),
  endTimeUnixNano: nanos('2024-01-02T00:00:00Z'),
});
// The root starts after its child: a trace starts at its earliest span, not at its root.
const root = spanRecord({ traceId, ...at('2024-01-01T10:00:05Z', 123_456n) });
const child = spanRecord({ traceId, parentId: root.spanId, ...at('2024-01-01T10:00:00Z', 999n) });
const late = spanRecord({ traceId, parentId: root.spanId, ...at('2024-01-01T09:59:00Z') });
const ingested = (projectId: string, spans: readonly SpanRecord[], extra: object = {}): DomainEvent => ({
  type: 'SpansIngested',
  data: { ...batch('shop', spans), projectId, ...extra },
});

const score = (target: AnnotationRecord['target'], targetId: string, name = 'correctness'): AnnotationRecord => ({
  target,
  targetId,
  documentPosition: target === 'document' ? 0 : null,
  name,
  annotatorKind: 'LLM',
  label: null,
  score: 0.5,
  explanation: null,
  metadata: {},
  identifier: '',
});
const recorded = (...annotations: AnnotationRecord[]): DomainEvent => ({
  type: 'AnnotationsRecorded',
  data: { source: 'API', annotations },
});

const shop = (...events: DomainEvent[]) => inStream(projectStream('shop'), ...events);
const other = (...events: DomainEvent[]) => inStream(projectStream('other'), ...events);
const spans = (...events: DomainEvent[]) => inStream('spans-test', ...events);
const notes = (...events: DomainEvent[]) => inStream('annotations-test', ...events);

const isoOfMicros = (us: bigint) => `${new Date(Number(us / 1000n)).toISOString().slice(0, 23)}${String(us % 1000n).padStart(3, '0')}Z`;
/** Each annotation's placement: target, its project and its start time (microseconds, as stored). */
const placements = async (db: CommonQueryMethods) =>
  (
    await db.any(sql.type(
      z.object({ target: z.string(), target_id: z.string(), project: z.string().nullable(), start_us: z.bigint().nullable() }),
    )`
      SELECT target, target_id, target_project::text AS project, (extract(epoch FROM target_start) * 1000000)::int8 AS start_us
      FROM annotations ORDER BY id`)
  ).map((r) => `${r.target}:${r.target_id} ${r.project ?? '-'} ${r.start_us === null ? '-' : isoOfMicros(r.start_us)}`);

const placed = (target: string, id: string, project: string | null, start: string | null) =>
  `${target}:${id} ${project ?? '-'} ${start ?? '-'}`;

test('given a span annotation recorded before its span and one after, then both take the span start (to the microsecond) and its project', () =>
  projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      notes(recorded(score('span', child.spanId))),
      spans(ingested(P, [root, child])),
      notes(recorded(score('span', root.spanId))),
    )
    .then(placements, [
      placed('span', child.spanId, P, '2024-01-01T10:00:00.000000Z'),
      placed('span', root.spanId, P, '2024-01-01T10:00:05.000123Z'),
    ]));

test('given a trace annotation, then it takes its earliest span start; an earlier span sent later to another project moves it, the project stays', () =>
  projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      other(created(Q, 'other')),
      notes(recorded(score('trace', traceId))),
      spans(ingested(P, [root, child])),
      notes(recorded(score('trace', traceId, 'relevance'))),
      spans(ingested(Q, [late])),
    )
    .then(placements, [
      placed('trace', traceId, P, '2024-01-01T09:59:00.000000Z'),
      placed('trace', traceId, P, '2024-01-01T09:59:00.000000Z'),
    ]));

test('given the earliest span of a trace deleted, then its trace annotations move to the next earliest; its own annotations go', () =>
  projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      spans(ingested(P, [root, child, late])),
      notes(recorded(score('trace', traceId), score('span', late.spanId), score('span', root.spanId))),
      inStream(`tracing-${P}`, { type: 'SpanDeleted', data: { projectId: P, spanId: late.spanId } }),
    )
    .then(placements, [
      placed('trace', traceId, P, '2024-01-01T10:00:00.000000Z'),
      placed('span', root.spanId, P, '2024-01-01T10:00:05.000123Z'),
    ]));

test('given a span id sent again with another start, a span removed from its event, documents and sessions, then only what tracing keeps places an annotation', () => {
  const again = { ...late, spanId: child.spanId };
  return projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      // a span removed since (erasure, retention) stood first in its event: it starts nothing
      spans(ingested(P, [root, child], { erased: [{ at: 0, traceId, sessionId: null }] }), ingested(P, [again])),
      notes(
        recorded(
          score('trace', traceId),
          score('span', child.spanId),
          score('document', child.spanId),
          score('session', 's1'),
          score('span', 'ffffffffffffffff'),
        ),
      ),
    )
    .then(placements, [
      placed('trace', traceId, P, '2024-01-01T10:00:00.000000Z'),
      placed('span', child.spanId, P, '2024-01-01T10:00:00.000000Z'),
      placed('document', child.spanId, null, null),
      placed('session', 's1', null, null),
      placed('span', 'ffffffffffffffff', null, null),
    ]);
});

test('given scores on spans and traces, then the chart draws them at their target start hour, in the project alone, and not after their trace is deleted', async () => {
  const chart = (db: CommonQueryMethods) =>
    db
      .oneFirst(sql.type(z.object({ id: z.bigint() }))`SELECT id FROM projects WHERE project_id = ${P}`)
      .then((rowid) =>
        annotationScoreBuckets(db, {
          projectRowid: Number(rowid),
          start: '2024-01-01T00:00:00Z',
          end: '2024-01-02T00:00:00Z',
          bucket: 'hour',
        }),
      )
      .then((rows) => rows.map((r) => [r.name, new Date(Number(r.bucket_us / 1000n)).toISOString(), r.mean, r.count]));
  const elsewhere = spanRecord({ traceId: newTraceId(), ...at('2024-01-01T10:30:00Z') });
  const history = [
    shop(created(P, 'shop')),
    other(created(Q, 'other')),
    spans(ingested(P, [root, child]), ingested(Q, [elsewhere])),
    notes(
      recorded(
        { ...score('span', root.spanId), score: 1 },
        { ...score('span', child.spanId), score: 0 },
        { ...score('trace', traceId), score: 0.25 },
        { ...score('span', late.spanId), score: 1 }, // not sent yet
        { ...score('span', elsewhere.spanId), score: 1 }, // another project's
      ),
    ),
  ] as const;
  await projectionSpec(annotationsProjection, tracingProjection)
    .given(...history)
    .then(chart, [['correctness', '2024-01-01T10:00:00.000Z', 1.25 / 3, 3]]);
  await projectionSpec(annotationsProjection, tracingProjection)
    .given(...history, inStream(`tracing-${P}`, { type: 'TraceDeleted', data: { projectId: P, traceId } }))
    .then(chart, []);
});

test.run();
