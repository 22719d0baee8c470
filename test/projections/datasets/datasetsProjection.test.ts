import { suite } from 'uvu';
import { datasetStream, datasetUploadStream } from '../../../domain/datasets/datasetStream.ts';
import type { AnyDatasetEvent, ExampleData } from '../../../domain/datasets/events.ts';
import { examplesAtVersion, findDataset, findDatasetVersion, listDatasetVersions } from '../../../projections/datasets/datasetQueries.ts';
import { datasetsProjection } from '../../../projections/datasets/datasetsProjection.ts';
import { inStream, projectionSpec } from '../../support/projectionSpec.ts';

const test = suite('datasets read model');

const datasetId = '11111111-1111-4111-8111-111111111111';
const upload = '33333333-3333-4333-8333-333333333333';
const [v1, v2, v3] = [
  'a1111111-1111-4111-8111-111111111111',
  'a2222222-2222-4222-8222-222222222222',
  'a3333333-3333-4333-8333-333333333333',
];
const [ex1, ex2] = ['e1111111-1111-4111-8111-111111111111', 'e2222222-2222-4222-8222-222222222222'];
const example = (exampleId: string, q: string): ExampleData => ({
  exampleId,
  externalId: null,
  input: { q },
  output: { a: q.toUpperCase() },
  metadata: {},
  splits: [],
  spanId: null,
});
const version = (versionId: string, uploadId: string | null): AnyDatasetEvent => ({
  type: 'DatasetVersionCreated',
  data: { datasetId, versionId, description: null, metadata: {}, uploadId },
});

const history = [
  inStream(datasetUploadStream(upload), {
    type: 'DatasetExamplesStaged',
    data: { uploadId: upload, seq: 0, examples: [example(ex1, 'one'), example(ex2, 'two')] },
  }),
  inStream(
    datasetStream(datasetId),
    { type: 'DatasetCreated', data: { datasetId, name: 'qa', description: null, metadata: {} } },
    version(v1, upload),
    version(v2, null),
    {
      type: 'DatasetExamplesPatched',
      data: { datasetId, versionId: v2, examples: [{ exampleId: ex1, input: { q: 'uno' }, output: {}, metadata: {} }] },
    },
    version(v3, null),
    { type: 'DatasetExamplesDeleted', data: { datasetId, versionId: v3, exampleIds: [ex2] } },
  ),
];

const contentAt = (versionId: string) => async (db: Parameters<typeof findDataset>[0]) => {
  const v = await findDatasetVersion(db, { versionId });
  return (await examplesAtVersion(db, { datasetId, versionRow: v!.id })).map((e) => e.input);
};

test('given an upload and two edits, then each version shows its own examples (versions are immutable)', async () => {
  await projectionSpec(datasetsProjection)
    .given(...history)
    .then(contentAt(v1), [{ q: 'one' }, { q: 'two' }]);
  await projectionSpec(datasetsProjection)
    .given(...history)
    .then(contentAt(v2), [{ q: 'uno' }, { q: 'two' }]);
  await projectionSpec(datasetsProjection)
    .given(...history)
    .then(contentAt(v3), [{ q: 'uno' }]);
  await projectionSpec(datasetsProjection)
    .given(...history)
    .then(async (db) => (await findDataset(db, { datasetId }))?.example_count, 1);
});

test('given staged examples no version took in (a refused upload), then no dataset shows them', async () => {
  await projectionSpec(datasetsProjection)
    .given(history[0]!)
    .then((db) => listDatasetVersions(db, { datasetId, cursor: null, limit: 10 }), []);
});

test('given crafted events (NUL characters, bad ids, wrong shapes), then rows Postgres accepts and nothing else', async () => {
  const crafted = [
    inStream(datasetUploadStream(upload), {
      type: 'DatasetExamplesStaged',
      data: {
        uploadId: upload,
        seq: 0,
        examples: [{ ...example(ex1, 'x\u0000\ud800'), splits: 'nope', externalId: 7 }, { exampleId: 'not-a-uuid' }, null],
      },
    } as never),
    inStream(
      datasetStream(datasetId),
      { type: 'DatasetCreated', data: { datasetId, name: 'bad\u0000name', description: 12, metadata: 'x' } } as never,
      version(v1, upload),
      { type: 'DatasetExamplesPatched', data: { datasetId, versionId: 'nope', examples: 'nope' } } as never,
      { type: 'DatasetExamplesDeleted', data: { datasetId: 'nope' } } as never,
    ),
  ];
  await projectionSpec(datasetsProjection)
    .given(...crafted)
    .then(
      async (db) => {
        const dataset = await findDataset(db, { datasetId });
        return [dataset?.name, dataset?.metadata, await contentAt(v1)(db)];
      },
      ['bad\ufffdname', {}, [{ q: 'x\ufffd\ufffd' }]],
    );
});

test.run();
