import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { annotationDecider, annotationDeletionDecider, InvalidAnnotationsError } from '../../../domain/annotations/annotationDecider.ts';
import type { AnnotationRecord } from '../../../domain/annotations/events.ts';
import type { ProjectEvent } from '../../../domain/projects/events.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';
import { annotationRecord } from '../../support/annotationFixtures.ts';

const a = annotationRecord;
const record = (annotations: AnnotationRecord[], asNotes = false) => ({
  type: 'RecordAnnotations' as const,
  source: 'API' as const,
  annotations,
  asNotes,
});

test('given nothing, when a batch is recorded, then ONE event holds every annotation', () =>
  deciderSpec(annotationDecider)
    .given([])
    .when(record([a(), a({ targetId: 'def', score: null })]))
    .then([{ type: 'AnnotationsRecorded', data: { source: 'API', annotations: [a(), a({ targetId: 'def', score: null })] } }]));

test('given nothing, when an empty batch is recorded, then nothing is appended', () =>
  deciderSpec(annotationDecider).given([]).when(record([])).then([]));

test('an explanation alone is a result (the client allows it); nothing at all is not', () => {
  deciderSpec(annotationDecider)
    .given([])
    .when(record([a({ label: null, score: null, explanation: 'why' })]))
    .thenMatches((e) => assert.is(e.length, 1));
  deciderSpec(annotationDecider)
    .given([])
    .when(record([a({ label: null, score: null })]))
    .thenThrows('invalid_annotation');
});

test('one broken annotation refuses the batch, and the error names every broken one by index and field', () => {
  try {
    annotationDecider.decide(record([a(), a({ score: Number.NaN }), a(), a({ target: 'document', documentPosition: -1 })]), null);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, InvalidAnnotationsError);
    const e = error as InvalidAnnotationsError;
    assert.equal(
      e.problems.map(({ index, problem }) => `${index}:${problem.path.join('.')}`),
      ['1:result.score', '3:document_position'],
    );
  }
});

test('"note" is only for notes', () => {
  deciderSpec(annotationDecider)
    .given([])
    .when(record([a({ name: 'note' })]))
    .thenThrows('invalid_annotation');
  deciderSpec(annotationDecider)
    .given([])
    .when(record([a({ name: 'note', label: null, score: null, explanation: 'x', identifier: 'px-span-note:1' })], true))
    .thenMatches((e) => assert.is(e.length, 1));
});

test('documents need a position of 0 or more and no identifier; other targets take no position', () => {
  deciderSpec(annotationDecider)
    .given([])
    .when(record([a({ target: 'document', documentPosition: 2 })]))
    .thenMatches((e) => assert.is(e.length, 1));
  deciderSpec(annotationDecider)
    .given([])
    .when(record([a({ target: 'document', documentPosition: 0, identifier: 'x' })]))
    .thenThrows('invalid_annotation');
  deciderSpec(annotationDecider)
    .given([])
    .when(record([a({ target: 'document', documentPosition: null })]))
    .thenThrows('invalid_annotation');
  deciderSpec(annotationDecider)
    .given([])
    .when(record([a({ documentPosition: 1 })]))
    .thenThrows('invalid_annotation');
});

const P = '11111111-1111-4111-8111-111111111111';
const created: ProjectEvent = {
  type: 'ProjectCreated',
  data: { projectId: P, name: 'shop', description: null, gradientStartColor: '#000000', gradientEndColor: '#ffffff' },
};
const deletion = {
  type: 'DeleteAnnotations' as const,
  projectId: P,
  target: 'span' as const,
  name: 'quality',
  identifier: null,
  annotatorKind: null,
  createdFrom: null,
  createdBefore: null,
  authorUserId: 'u1',
};

test('given a project, when its annotations are deleted by filter, then one AnnotationsDeleted with the filter', () =>
  deciderSpec(annotationDeletionDecider)
    .given([created])
    .when(deletion)
    .then([
      {
        type: 'AnnotationsDeleted',
        data: {
          projectId: P,
          target: 'span',
          name: 'quality',
          identifier: null,
          annotatorKind: null,
          createdFrom: null,
          createdBefore: null,
          authorUserId: 'u1',
        },
      },
    ]));

test('given a deleted project or a bad window, then the deletion is refused', () => {
  deciderSpec(annotationDeletionDecider)
    .given([created, { type: 'ProjectDeleted', data: { projectId: P, name: 'shop' } }])
    .when(deletion)
    .thenThrows('project_not_found');
  deciderSpec(annotationDeletionDecider)
    .given([created])
    .when({ ...deletion, createdFrom: '2024-02-01T00:00:00Z', createdBefore: '2024-01-01T00:00:00Z' })
    .thenThrows('invalid_time_range');
  for (const unstorable of ['0000-01-01T00:00:00Z', '+099999-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00'])
    deciderSpec(annotationDeletionDecider)
      .given([created])
      .when({ ...deletion, createdFrom: unstorable })
      .thenThrows('invalid_time_range');
});

test.run();
