import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { datasetStream, datasetUploadStream } from '../../../domain/datasets/datasetStream.ts';
import type { ExampleData } from '../../../domain/datasets/events.ts';
import type { ExperimentCreated, ExperimentEvaluationRecorded, ExperimentRunRecorded } from '../../../domain/experiments/events.ts';
import { experimentEvaluationStream, experimentRunStream, experimentStream } from '../../../domain/experiments/experimentStream.ts';
import { datasetsProjection } from '../../../projections/datasets/datasetsProjection.ts';
import {
  evaluationsOfExperiment,
  findExperiment,
  incompleteRuns,
  listExperimentRuns,
  listExperiments,
} from '../../../projections/experiments/experimentQueries.ts';
import { experimentsProjection } from '../../../projections/experiments/experimentsProjection.ts';
import { GIVEN_TIME, type GivenStream, inStream, projectionSpec } from '../../support/projectionSpec.ts';

/**
 * The experiments read model, given/when/then: an experiment over a dataset version's examples,
 * its runs (a failed one replaced by its retry) and their evaluations (upserted by name), and
 * what a deletion of the experiment or of its dataset takes with it. Its queries name the
 * dataset's row ids, so the datasets read model runs alongside.
 */
const test = suite('experiments read model');
const spec = projectionSpec(experimentsProjection, datasetsProjection);

const datasetId = '11111111-1111-4111-8111-111111111111';
const upload = '33333333-3333-4333-8333-333333333333';
const versionId = 'a1111111-1111-4111-8111-111111111111';
const [ex1, ex2] = ['e1111111-1111-4111-8111-111111111111', 'e2222222-2222-4222-8222-222222222222'];
const experimentId = 'c1111111-1111-4111-8111-111111111111';
const [run1, run2] = ['d1111111-1111-4111-8111-111111111111', 'd2222222-2222-4222-8222-222222222222'];
const GIVEN_US = BigInt(GIVEN_TIME.getTime()) * 1000n;

const example = (exampleId: string, q: string): ExampleData => ({
  exampleId,
  externalId: null,
  input: { q },
  output: {},
  metadata: {},
  splits: [],
  spanId: null,
});
const dataset: readonly GivenStream[] = [
  inStream(datasetUploadStream(upload), {
    type: 'DatasetExamplesStaged',
    data: { uploadId: upload, seq: 0, examples: [example(ex1, 'one'), example(ex2, 'two')] },
  }),
  inStream(
    datasetStream(datasetId),
    { type: 'DatasetCreated', data: { datasetId, name: 'qa', description: null, metadata: {} } },
    { type: 'DatasetVersionCreated', data: { datasetId, versionId, description: null, metadata: {}, uploadId: upload } },
  ),
];

const created: ExperimentCreated = {
  type: 'ExperimentCreated',
  data: {
    experimentId,
    datasetId,
    versionId,
    name: 'baseline',
    description: 'first try',
    metadata: { model: 'm1' },
    repetitions: 2,
    projectName: 'Experiment-baseline',
    exampleIds: [ex1, ex2],
  },
};
const runRecorded = (
  runId: string,
  exampleId: string,
  repetition: number,
  error: string | null,
  output: string | null,
): ExperimentRunRecorded => ({
  type: 'ExperimentRunRecorded',
  data: {
    experimentId,
    runId,
    exampleId,
    repetition,
    output,
    startTime: '2024-02-01T00:00:01.000Z',
    endTime: '2024-02-01T00:00:02.000Z',
    traceId: null,
    error,
  },
});
const run = (runId: string, exampleId: string, repetition: number, error: string | null, output: string | null = 'answer'): GivenStream =>
  inStream(experimentRunStream(experimentId, exampleId, repetition), runRecorded(runId, exampleId, repetition, error, output));
const evaluation = (runId: string, name: string, score: number): GivenStream => {
  const recorded: ExperimentEvaluationRecorded = {
    type: 'ExperimentEvaluationRecorded',
    data: {
      experimentId,
      runId,
      name,
      annotatorKind: 'CODE',
      label: null,
      score,
      explanation: null,
      error: null,
      metadata: {},
      traceId: null,
      startTime: '2024-02-01T00:00:03.000Z',
      endTime: '2024-02-01T00:00:04.000Z',
    },
  };
  return inStream(experimentEvaluationStream(), recorded);
};
const history = [...dataset, inStream(experimentStream(experimentId), created)];
const summary = async (db: Parameters<typeof findExperiment>[0]) => {
  const row = await findExperiment(db, { experimentId });
  return (
    row && {
      name: row.name,
      description: row.description,
      metadata: row.metadata,
      repetitions: row.repetitions,
      project: row.project_name,
      examples: row.example_count,
      successful: row.successful_run_count,
      failed: row.failed_run_count,
    }
  );
};

test('given an experiment over a version, then it is listed under its dataset with its examples and no runs', async () => {
  await spec.given(...history).thenMatches(
    async (db) => ({ summary: await summary(db), listed: await listExperiments(db, { datasetId, cursor: null, limit: 10 }) }),
    ({ summary, listed }) => {
      assert.equal(summary, {
        name: 'baseline',
        description: 'first try',
        metadata: { model: 'm1' },
        repetitions: 2,
        project: 'Experiment-baseline',
        examples: 2,
        successful: 0,
        failed: 0,
      });
      assert.equal(
        listed.map((r) => r.experiment_id),
        [experimentId],
      );
      assert.is(listed[0]!.created_us, GIVEN_US, 'stamped with the time the event was recorded');
    },
  );
});

test('given runs, one failed, then they are counted and what still needs a successful run is listed', async () => {
  await spec.given(...history, run(run1, ex1, 1, null), run(run2, ex2, 1, 'timeout')).then(
    async (db) => {
      const row = await summary(db);
      const runs = await listExperimentRuns(db, { experimentId, cursor: null, limit: null });
      const incomplete = await incompleteRuns(db, { experimentId, cursor: null, limit: 10 });
      return {
        counts: [row?.successful, row?.failed],
        runs: runs.map((r) => [r.run_id, r.repetition, r.error]),
        incomplete: incomplete.map((r) => [r.ex_input, r.repetitions]),
      };
    },
    {
      counts: [1, 1],
      runs: [
        [run2, 1, 'timeout'],
        [run1, 1, null],
      ],
      // ex1 lacks repetition 2; ex2 lacks both (its first one failed)
      incomplete: [
        [{ q: 'one' }, [2]],
        [{ q: 'two' }, [1, 2]],
      ],
    },
  );
});

test('given a failed run and its evaluation, when the run is retried, then the run holds the new output and the old evaluation is gone', async () => {
  const retried = [
    ...history,
    run(run2, ex2, 1, 'timeout', null),
    evaluation(run2, 'correct', 0),
    run(run2, ex2, 1, null, 'second answer'),
  ];
  await spec.given(...retried).then(
    async (db) => ({
      runs: (await listExperimentRuns(db, { experimentId, cursor: null, limit: null })).map((r) => ({ output: r.output, error: r.error })),
      evaluations: await evaluationsOfExperiment(db, experimentId),
    }),
    { runs: [{ output: 'second answer', error: null }], evaluations: [] },
  );
});

test('given two evaluations of a run under one name, then the later one is kept', async () => {
  await spec
    .given(
      ...history,
      run(run1, ex1, 1, null),
      evaluation(run1, 'correct', 0),
      evaluation(run1, 'correct', 1),
      evaluation(run1, 'short', 0.5),
    )
    .then(
      async (db) => (await evaluationsOfExperiment(db, experimentId)).map((e) => [e.name, e.score]),
      [
        ['correct', 1],
        ['short', 0.5],
      ],
    );
});

test('given an experiment, when it is updated, then the fields named change and the others stay', async () => {
  await spec
    .given(...history, inStream(experimentStream(experimentId), { type: 'ExperimentUpdated', data: { experimentId, name: 'renamed' } }))
    .then(
      async (db) => {
        const row = await summary(db);
        return [row?.name, row?.description, row?.metadata];
      },
      ['renamed', 'first try', { model: 'm1' }],
    );
});

test('given an experiment with runs and evaluations, when it or its dataset is deleted, then nothing of it is left', async () => {
  const withWork = [...history, run(run1, ex1, 1, null), evaluation(run1, 'correct', 1)];
  for (const deletion of [
    inStream(experimentStream(experimentId), { type: 'ExperimentDeleted', data: { experimentId } }),
    inStream(datasetStream(datasetId), { type: 'DatasetDeleted', data: { datasetId, name: 'qa' } }),
  ]) {
    await spec.given(...withWork, deletion).then(
      async (db) => {
        const runs = await listExperimentRuns(db, { experimentId, cursor: null, limit: null });
        return [await findExperiment(db, { experimentId }), runs.length, (await evaluationsOfExperiment(db, experimentId)).length];
      },
      [null, 0, 0],
    );
  }
});

test('given crafted events (repeated examples, no repetitions, a run of no experiment, an evaluation of no run), then only sound rows', async () => {
  const crafted = {
    ...created,
    data: { ...created.data, repetitions: 0, exampleIds: [ex1, ex1, 'not-a-uuid'] },
  } as ExperimentCreated;
  const strayRun: GivenStream = inStream('experiment-run-stray', {
    type: 'ExperimentRunRecorded',
    data: { ...runRecorded(run1, ex1, 1, null, 'answer').data, experimentId: 'c9999999-9999-4999-8999-999999999999' },
  });
  await spec.given(...dataset, inStream(experimentStream(experimentId), crafted), strayRun, evaluation(run2, 'correct', 1)).then(
    async (db) => {
      const row = await summary(db);
      return [row?.repetitions, row?.examples, (await evaluationsOfExperiment(db, experimentId)).length];
    },
    [1, 1, 0],
  );
});

test.run();
