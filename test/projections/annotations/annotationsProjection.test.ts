import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { withoutAnnotations } from '../../../domain/annotations/erasedAnnotations.ts';
import type { AnnotationRecord } from '../../../domain/annotations/events.ts';
import type { DomainEvent } from '../../../domain/decider.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import { annotationsProjection } from '../../../projections/annotations/annotationsProjection.ts';
import { annotationsOnTargets, listAnnotations } from '../../../projections/annotations/annotationQueries.ts';
import { annotationSummaries } from '../../../projections/annotations/annotationSummaryQueries.ts';
import { listAnnotationConfigs } from '../../../projections/annotations/annotationConfigQueries.ts';
import { inStream, projectionSpec } from '../../support/projectionSpec.ts';
import { attrs, batch, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { projectCreated } from '../../support/annotationFixtures.ts';

const P = '11111111-1111-4111-8111-111111111111';
const Q = '22222222-2222-4222-8222-222222222222';
const created = projectCreated;
const traceId = newTraceId();
const spanA = spanRecord({ traceId, attributes: attrs({ 'session.id': 'sess-1' }) });
const spanB = spanRecord({ traceId, parentId: spanA.spanId });
const ingested = (projectId: string, spans = [spanA, spanB]): DomainEvent => ({
  type: 'SpansIngested',
  data: { ...batch('shop', spans), projectId },
});

const annotation = (over: Partial<AnnotationRecord>): AnnotationRecord => ({
  target: 'span',
  targetId: spanA.spanId,
  documentPosition: null,
  name: 'correctness',
  annotatorKind: 'HUMAN',
  label: 'correct',
  score: 1,
  explanation: null,
  metadata: {},
  identifier: '',
  ...over,
});
const recorded = (...annotations: AnnotationRecord[]): DomainEvent => ({
  type: 'AnnotationsRecorded',
  data: { source: 'API', annotations },
});

const shop = (...events: DomainEvent[]) => inStream(projectStream('shop'), ...events);
const spans = (...events: DomainEvent[]) => inStream('spans-test', ...events);
const notes = (...events: DomainEvent[]) => inStream('annotations-test', ...events);

const brief = (rows: readonly { name: string; label: string | null; score: number | null; target_id: string; identifier: string }[]) =>
  rows.map((r) => ({ name: r.name, label: r.label, score: r.score, target: r.target_id, identifier: r.identifier }));

const spanList =
  (projectId = P) =>
  (db: Parameters<typeof listAnnotations>[0]) =>
    listAnnotations(db, { projectId, target: 'span', cursor: null, limit: 100 }).then(brief);

test('given annotations on a span, then the project lists them newest first; the same key is replaced, not added', () =>
  projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      spans(ingested(P)),
      notes(
        recorded(annotation({ label: 'wrong', score: 0 })),
        recorded(annotation({ name: 'relevance', label: null, score: 0.5, identifier: 'judge-1' })),
        recorded(annotation({ label: 'correct', score: 1 })),
      ),
    )
    .then(spanList(), [
      { name: 'relevance', label: null, score: 0.5, target: spanA.spanId, identifier: 'judge-1' },
      { name: 'correctness', label: 'correct', score: 1, target: spanA.spanId, identifier: '' },
    ]));

test('given an annotation that arrives before its span, then it shows up in the project once the span arrives', async () => {
  await projectionSpec(annotationsProjection)
    .given(shop(created(P, 'shop')), notes(recorded(annotation({}))))
    .then(spanList(), []);
  await projectionSpec(annotationsProjection)
    .given(shop(created(P, 'shop')), notes(recorded(annotation({}))), spans(ingested(P)))
    .then(spanList(), [{ name: 'correctness', label: 'correct', score: 1, target: spanA.spanId, identifier: '' }]);
});

test('given a batch with the same key twice, then the last one wins', () =>
  projectionSpec(annotationsProjection)
    .given(shop(created(P, 'shop')), spans(ingested(P)), notes(recorded(annotation({ label: 'a' }), annotation({ label: 'b' }))))
    .then(spanList(), [{ name: 'correctness', label: 'b', score: 1, target: spanA.spanId, identifier: '' }]));

test('given annotations on a trace, its spans, its documents and its session, when the trace is deleted, then only the session ones stay', () =>
  projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      spans(ingested(P)),
      notes(
        recorded(
          annotation({}),
          annotation({ targetId: spanB.spanId }),
          annotation({ target: 'document', documentPosition: 0 }),
          annotation({ target: 'trace', targetId: traceId }),
          annotation({ target: 'session', targetId: 'sess-1' }),
        ),
      ),
      inStream(`tracing-${P}`, { type: 'TraceDeleted', data: { projectId: P, traceId } }),
    )
    .then(
      async (db) =>
        [
          ...(await annotationsOnTargets(db, 'span', [spanA.spanId, spanB.spanId])),
          ...(await annotationsOnTargets(db, 'document', [spanA.spanId])),
          ...(await annotationsOnTargets(db, 'trace', [traceId])),
          ...(await annotationsOnTargets(db, 'session', ['sess-1'])),
        ].map((a) => a.target),
      // the trace was the session's only one: the session went with it
      [],
    ));

test('given annotations on three traces in two sessions, when a policy run expires two of them, then theirs go, the session left without traces with them; the third trace and its session keep theirs', () => {
  const [other, third] = [newTraceId(), newTraceId()];
  const otherSpan = spanRecord({ traceId: other, attributes: attrs({ 'session.id': 'sess-2' }) });
  const thirdSpan = spanRecord({ traceId: third, attributes: attrs({ 'session.id': 'sess-1' }) });
  return projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      spans(ingested(P, [spanA, spanB, otherSpan, thirdSpan])),
      notes(
        recorded(
          annotation({}),
          annotation({ target: 'document', documentPosition: 0 }),
          annotation({ target: 'trace', targetId: traceId }),
          annotation({ targetId: otherSpan.spanId }),
          annotation({ target: 'session', targetId: 'sess-2' }),
          annotation({ targetId: thirdSpan.spanId }),
          annotation({ target: 'trace', targetId: third }),
          annotation({ target: 'session', targetId: 'sess-1' }),
        ),
      ),
      inStream(`tracing-${P}`, {
        type: 'TracesExpired',
        data: { projectId: P, policyId: '1', startedBefore: null, maxTraces: 1, traceIds: [traceId, other, newTraceId()] },
      }),
    )
    .then(
      async (db) =>
        [
          ...(await annotationsOnTargets(db, 'span', [spanA.spanId, spanB.spanId, otherSpan.spanId, thirdSpan.spanId])),
          ...(await annotationsOnTargets(db, 'document', [spanA.spanId])),
          ...(await annotationsOnTargets(db, 'trace', [traceId, other, third])),
          ...(await annotationsOnTargets(db, 'session', ['sess-1', 'sess-2'])),
        ]
          .map((a) => `${a.target}:${a.target_id}`)
          .sort(),
      [`session:sess-1`, `span:${thirdSpan.spanId}`, `trace:${third}`].sort(),
    );
});

test('given a deleted span, then its annotations go and its sibling keeps its own', () =>
  projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      spans(ingested(P)),
      notes(recorded(annotation({}), annotation({ targetId: spanB.spanId }), annotation({ target: 'trace', targetId: traceId }))),
      inStream(`tracing-${P}`, { type: 'SpanDeleted', data: { projectId: P, spanId: spanA.spanId } }),
    )
    .then(
      async (db) =>
        [
          ...(await annotationsOnTargets(db, 'span', [spanA.spanId, spanB.spanId])),
          ...(await annotationsOnTargets(db, 'trace', [traceId])),
        ].map((a) => `${a.target}:${a.target_id}`),
      [`span:${spanB.spanId}`, `trace:${traceId}`],
    ));

test('given a deletion naming another project, then nothing goes', () =>
  projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      inStream(projectStream('other'), created(Q, 'other')),
      spans(ingested(P)),
      notes(recorded(annotation({}))),
      inStream(`tracing-${Q}`, { type: 'SpanDeleted', data: { projectId: Q, spanId: spanA.spanId } }),
      inStream(`tracing-${Q}`, { type: 'TraceDeleted', data: { projectId: Q, traceId } }),
      inStream(`tracing-${Q}`, {
        type: 'TracesExpired',
        data: { projectId: Q, policyId: 'default', startedBefore: null, maxTraces: null, traceIds: [traceId] },
      }),
    )
    .then(async (db) => (await annotationsOnTargets(db, 'span', [spanA.spanId])).length, 1));

test('given a deleted project, then the annotations of its spans, traces and sessions go, and its config assignments', () =>
  projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      spans(ingested(P)),
      notes(
        recorded(annotation({}), annotation({ target: 'trace', targetId: traceId }), annotation({ target: 'session', targetId: 'sess-1' })),
      ),
      inStream(
        'annotation-configs',
        {
          type: 'AnnotationConfigCreated',
          data: {
            configId: 1,
            config: {
              type: 'FREEFORM',
              name: 'free',
              description: null,
              optimizationDirection: null,
              threshold: null,
              lowerBound: null,
              upperBound: null,
            },
          },
        },
        { type: 'AnnotationConfigAssigned', data: { configId: 1, projectId: P } },
      ),
      shop({ type: 'ProjectDeleted', data: { projectId: P, name: 'shop' } }),
    )
    .then(
      async (db) => ({
        annotations: [
          ...(await annotationsOnTargets(db, 'span', [spanA.spanId])),
          ...(await annotationsOnTargets(db, 'trace', [traceId])),
          ...(await annotationsOnTargets(db, 'session', ['sess-1'])),
        ].length,
        assigned: (await listAnnotationConfigs(db, { cursor: null, limit: 10, projectId: P })).length,
        configs: (await listAnnotationConfigs(db, { cursor: null, limit: 10 })).length,
      }),
      { annotations: 0, assigned: 0, configs: 1 },
    ));

test('given a bulk delete by name, then only that name goes, and only in that project', () =>
  projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      spans(ingested(P)),
      notes(recorded(annotation({}), annotation({ name: 'keep' }))),
      inStream(`annotation-deletions-${P}`, {
        type: 'AnnotationsDeleted',
        data: {
          projectId: P,
          target: 'span',
          name: 'correctness',
          identifier: null,
          annotatorKind: null,
          createdFrom: null,
          createdBefore: null,
          authorUserId: null,
        },
      }),
    )
    .then(async (db) => (await spanList()(db)).map((a) => a.name), ['keep']));

test('given scores and labels, then the summary per name counts them, averages the scores and ranks the labels', () =>
  projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      spans(ingested(P)),
      notes(
        recorded(
          annotation({ label: 'correct', score: 1 }),
          annotation({ targetId: spanB.spanId, label: 'wrong', score: 0 }),
          annotation({ name: 'tone', label: 'kind', score: null, identifier: 'x' }),
          annotation({ name: 'note', label: null, score: null, explanation: 'look here', identifier: 'n1' }),
        ),
      ),
    )
    .then(
      (db) => annotationSummaries(db, P, 'span'),
      [
        {
          name: 'correctness',
          count: 2,
          meanScore: 0.5,
          labels: [
            { label: 'correct', count: 1 },
            { label: 'wrong', count: 1 },
          ],
        },
        { name: 'tone', count: 1, meanScore: null, labels: [{ label: 'kind', count: 1 }] },
      ],
    ));

test('given text Postgres cannot hold in a crafted event, then the rows still project with it replaced', () =>
  projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      spans(ingested(P)),
      notes(recorded(annotation({ label: 'a\u0000b', explanation: '\ud800x', metadata: { 'k\u0000': ['\udc00'] }, score: 1 }))),
    )
    .thenMatches(
      (db) => annotationsOnTargets(db, 'span', [spanA.spanId]),
      (rows) => {
        assert.is(rows[0]!.label, 'a\ufffdb');
        assert.is(rows[0]!.explanation, '\ufffdx');
        assert.equal(rows[0]!.metadata, { 'k\ufffd': ['\ufffd'] });
      },
    ));

test('given crafted events of every annotation type with garbage data, then the projection passes them and a normal annotation after them shows', () =>
  projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      spans(ingested(P)),
      notes(
        { type: 'AnnotationsRecorded', data: null },
        { type: 'AnnotationsRecorded', data: { annotations: 'no' } },
        {
          type: 'AnnotationsRecorded',
          data: {
            source: 7,
            annotations: [
              null,
              { target: 'span' },
              { target: 'span', targetId: 5 },
              { target: 'planet', targetId: 'x' },
              {
                target: 'document',
                targetId: 'x'.repeat(5000),
                documentPosition: 1e20,
                score: 'NaN',
                metadata: 'str',
                name: 9,
                label: 'l'.repeat(5000),
              },
            ],
          },
        },
        { type: 'AnnotationsDeleted', data: {} },
        { type: 'AnnotationsDeleted', data: { projectId: P, target: 'span', createdFrom: 'soon', name: 3 } },
        { type: 'AnnotationConfigCreated', data: { configId: 'x' } },
        {
          type: 'AnnotationConfigCreated',
          data: { configId: 1, config: { type: 'CATEGORICAL', name: 'n\u0000', values: [null, { label: 3 }] } },
        },
        { type: 'AnnotationConfigCreated', data: { configId: 2, config: { type: 'CATEGORICAL', name: 'n\u0000' } } },
        { type: 'AnnotationConfigUpdated', data: { configId: 1, config: null } },
        { type: 'AnnotationConfigAssigned', data: { configId: 1, projectId: 'not-a-uuid' } },
        { type: 'SpanDeleted', data: { spanId: 'x' } },
        { type: 'SessionDeleted', data: { projectId: P, sessionId: 12 } },
        { type: 'TracesExpired', data: null },
        { type: 'TracesExpired', data: { projectId: 'not-a-uuid', traceIds: [traceId] } },
        { type: 'TracesExpired', data: { projectId: P, traceIds: traceId } },
        { type: 'TracesExpired', data: { projectId: P, traceIds: [7, null, {}, 'a\u0000', '\ud800'] } },
        { type: 'ApiKeyIssued', data: { keyId: null } },
        { type: 'SpansIngested', data: { projectId: P, spans: 'none' } },
        {
          type: 'SpansIngested',
          data: { projectId: P, spans: [null, 5, { traceId: 7 }, { spanId: 'x'.repeat(5000), traceId: 't\u0000', sessionId: '  ' }] },
        },
        { type: 'SpansIngested', data: null },
        recorded(annotation({})),
      ),
    )
    .then(spanList(), [{ name: 'correctness', label: 'correct', score: 1, target: spanA.spanId, identifier: '' }]));

test('given annotations, when some are removed by key, then exactly those go', () =>
  projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      spans(ingested(P)),
      notes(recorded(annotation({}), annotation({ name: 'keep' }), annotation({ identifier: 'other' })), {
        type: 'AnnotationsRemoved',
        data: {
          annotations: [{ target: 'span', targetId: spanA.spanId, documentPosition: null, name: 'correctness', identifier: '' }, null],
        },
      }),
    )
    .then(async (db) => (await spanList()(db)).map((a) => `${a.name}/${a.identifier}`), ['correctness/other', 'keep/']));

/** Every row's id with what names it, in id order. */
const idsOf = async (db: CommonQueryMethods) =>
  (
    await db.any(sql.type(z.object({ id: z.bigint(), target_id: z.string(), name: z.string() }))`
      SELECT id, target_id, name FROM annotations ORDER BY id`)
  ).map((r) => `${Number(r.id)} ${r.target_id === spanA.spanId ? 'A' : r.target_id === spanB.spanId ? 'B' : r.target_id}/${r.name}`);

// An event with the erased span's annotations in the middle (and a key repeated: the last
// occurrence places it), one holding only annotations on it, and annotations after both.
const history = [
  recorded(
    annotation({ name: 'x' }),
    annotation({ targetId: spanB.spanId, name: 'y' }),
    annotation({ name: 'z' }),
    annotation({ name: 'x', label: 'again' }),
  ),
  recorded(annotation({ targetId: spanB.spanId, name: 'only' }), annotation({ targetId: spanB.spanId, name: 'only2' })),
  recorded(annotation({ name: 'later' }), annotation({ targetId: spanB.spanId, name: 'y' })),
  recorded(annotation({ name: 'last' })),
];
const erasingB = { spanIds: new Set([spanB.spanId]), traceIds: new Set<string>(), sessionIds: new Set<string>() };
const removed = (events: readonly DomainEvent[]): DomainEvent[] =>
  events.map((e) => ({ ...e, data: withoutAnnotations(e.data, erasingB) ?? e.data }));

test('given annotations on a span live, then each gets its id in log order, one per key placed by its last occurrence', () =>
  projectionSpec(annotationsProjection)
    .given(shop(created(P, 'shop')), spans(ingested(P)), notes(...history))
    .then(idsOf, ['1 B/y', '2 A/z', '3 A/x', '4 B/only', '5 B/only2', '6 A/later', '8 A/last']));

test('given the log after a removal of a span’s annotations (mid-event and whole events), when rebuilt, then every remaining annotation has its live id', () =>
  projectionSpec(annotationsProjection)
    .given(shop(created(P, 'shop')), spans(ingested(P)), notes(...removed(history)))
    .then(idsOf, ['2 A/z', '3 A/x', '6 A/later', '8 A/last']));

test('given the log after two removals (one span’s, then the other’s), when rebuilt, then the ids handed out after them stay', () => {
  const erasingA = { spanIds: new Set([spanA.spanId]), traceIds: new Set<string>(), sessionIds: new Set<string>() };
  const twice = removed(history).map((e) => ({ ...e, data: withoutAnnotations(e.data, erasingA) ?? e.data }));
  return projectionSpec(annotationsProjection)
    .given(shop(created(P, 'shop')), spans(ingested(P)), notes(...twice, recorded(annotation({ name: 'after' }))))
    .then(idsOf, ['9 A/after']);
});

test('given a crafted event with junk among its removed annotations, then only the well-formed slots take an id, once each', () =>
  projectionSpec(annotationsProjection)
    .given(
      shop(created(P, 'shop')),
      spans(ingested(P)),
      notes(
        { type: 'AnnotationsRecorded', data: { source: 'API', annotations: [], erased: 'no' } },
        {
          type: 'AnnotationsRecorded',
          data: {
            source: 'API',
            annotations: [annotation({ name: 'kept' })],
            erased: [null, 'x', {}, { at: -1 }, { at: 1.5 }, { at: '0' }, { at: 2 ** 60 }, { at: 0 }, { at: 0 }],
          },
        },
        recorded(annotation({ name: 'after' })),
      ),
    )
    .then(idsOf, ['2 A/kept', '3 A/after']));

test.run();
