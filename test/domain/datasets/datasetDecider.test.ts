import { suite } from 'uvu';
import { datasetDecider } from '../../../domain/datasets/datasetDecider.ts';
import { datasetNameDecider } from '../../../domain/datasets/datasetNameDecider.ts';
import { datasetSplitDecider } from '../../../domain/datasets/datasetVocabularyDecider.ts';
import type { DatasetEvent } from '../../../domain/datasets/events.ts';
import { experimentRunDecider } from '../../../domain/experiments/experimentRunDecider.ts';
import type { ExperimentRunRecorded } from '../../../domain/experiments/events.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';

const test = suite('dataset and experiment deciders');

const datasetId = '11111111-1111-4111-8111-111111111111';
const created: DatasetEvent = { type: 'DatasetCreated', data: { datasetId, name: 'qa', description: null, metadata: {} } };
const v1: DatasetEvent = {
  type: 'DatasetVersionCreated',
  data: {
    datasetId,
    versionId: '22222222-2222-4222-8222-222222222222',
    description: null,
    metadata: {},
    uploadId: '33333333-3333-4333-8333-333333333333',
  },
};
const addVersion = {
  type: 'AddDatasetVersion' as const,
  datasetId,
  create: null,
  versionId: '44444444-4444-4444-8444-444444444444',
  description: null,
  metadata: {},
  uploadId: null,
  added: [],
  patched: [],
  deleted: ['55555555-5555-4555-8555-555555555555'],
};

test('given nothing, when an upload creates a dataset, then DatasetCreated and its first version', () => {
  deciderSpec(datasetDecider)
    .given([])
    .when({
      ...addVersion,
      create: { name: 'qa', description: null, metadata: {} },
      uploadId: v1.data.uploadId,
      deleted: [],
      versionId: v1.data.versionId,
    })
    .then([created, v1]);
});

test('given a dataset, when a version patches and deletes the same example, then it is refused', () => {
  const exampleId = addVersion.deleted[0]!;
  deciderSpec(datasetDecider)
    .given([created, v1])
    .when({ ...addVersion, patched: [{ exampleId, input: { q: 1 }, output: {}, metadata: {} }] })
    .thenThrows('example_changed_twice');
});

test('given a dataset, when a version deletes an example, then a version and the deletion, appended together', () => {
  deciderSpec(datasetDecider)
    .given([created, v1])
    .when(addVersion)
    .then([
      {
        type: 'DatasetVersionCreated',
        data: { datasetId, versionId: addVersion.versionId, description: null, metadata: {}, uploadId: null },
      },
      { type: 'DatasetExamplesDeleted', data: { datasetId, versionId: addVersion.versionId, exampleIds: addVersion.deleted } },
    ]);
});

test('a version that changes nothing is refused; one on a deleted dataset is not found; the same version twice is nothing', () => {
  deciderSpec(datasetDecider)
    .given([created])
    .when({ ...addVersion, deleted: [] })
    .thenThrows('empty_version');
  deciderSpec(datasetDecider)
    .given([created, { type: 'DatasetDeleted', data: { datasetId, name: 'qa' } }])
    .when(addVersion)
    .thenThrows('dataset_not_found');
  deciderSpec(datasetDecider)
    .given([created, v1])
    .when({ ...addVersion, versionId: v1.data.versionId })
    .then([]);
});

test('a name with a NUL character is refused, not silently changed', () => {
  deciderSpec(datasetDecider)
    .given([])
    .when({ ...addVersion, create: { name: 'q\u0000a', description: null, metadata: {} } })
    .thenThrows('invalid_dataset_name');
});

test('dataset names are unique: a name held by another dataset is a conflict until released', () => {
  const claimed = { type: 'DatasetNameClaimed' as const, data: { name: 'qa', datasetId } };
  deciderSpec(datasetNameDecider)
    .given([claimed])
    .when({ type: 'ClaimDatasetName', name: 'qa', datasetId: 'other' })
    .thenThrows('dataset_exists');
  deciderSpec(datasetNameDecider)
    .given([claimed, { type: 'DatasetNameReleased', data: { name: 'qa', datasetId } }])
    .when({ type: 'ClaimDatasetName', name: 'qa', datasetId: 'other' })
    .then([{ type: 'DatasetNameClaimed', data: { name: 'qa', datasetId: 'other' } }]);
});

test('splits an upload names are created once; existing ones are used', () => {
  const split = { name: 'train', description: null, color: '#808080', metadata: {} };
  deciderSpec(datasetSplitDecider)
    .given([{ type: 'DatasetSplitCreated', data: { splitId: 1, split } }])
    .when({ type: 'CreateDatasetSplits', splits: [split, { ...split, name: 'test' }], ifAbsent: true })
    .then([{ type: 'DatasetSplitCreated', data: { splitId: 2, split: { ...split, name: 'test' } } }]);
  deciderSpec(datasetSplitDecider)
    .given([{ type: 'DatasetSplitCreated', data: { splitId: 1, split } }])
    .when({ type: 'CreateDatasetSplits', splits: [split], ifAbsent: false })
    .thenThrows('dataset_split_exists');
});

const run = (error: string | null): ExperimentRunRecorded => ({
  type: 'ExperimentRunRecorded',
  data: {
    experimentId: 'e',
    runId: 'r1',
    exampleId: 'x',
    repetition: 1,
    output: 1,
    startTime: '2024-01-01T00:00:00.000000Z',
    endTime: '2024-01-01T00:00:01.000000Z',
    traceId: null,
    error,
  },
});
const record = { type: 'RecordExperimentRun' as const, ...run(null).data, runId: 'r2' };

test('one successful run per example and repetition; a failed one is replaced under the same run id', () => {
  deciderSpec(experimentRunDecider)
    .given([run(null)])
    .when(record)
    .thenThrows('experiment_run_exists');
  deciderSpec(experimentRunDecider)
    .given([run('boom')])
    .when(record)
    .then([run(null)]);
  deciderSpec(experimentRunDecider)
    .given([])
    .when(record)
    .then([{ ...run(null), data: { ...run(null).data, runId: 'r2' } }]);
});

test('a run timed outside the storable years (domain/base/storableTime.ts) is refused, naming the field', () => {
  for (const [field, unstorable] of [
    ['startTime', '0000-01-01T00:00:00Z'],
    ['endTime', '+099999-01-01T00:00:00Z'],
  ] as const)
    deciderSpec(experimentRunDecider)
      .given([])
      .when({ ...record, [field]: unstorable })
      .thenThrows('invalid_run_times');
});

test.run();
