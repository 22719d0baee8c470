process.env.PHOENIX_DISCOVER_CONFIG = 'false';

import { createClient } from '@arizeai/phoenix-client';
import { appendDatasetExamples, createDataset, getDataset, getDatasetExamples, getDatasetInfo } from '@arizeai/phoenix-client/datasets';
import {
  asEvaluator,
  createExperiment,
  deleteExperiment,
  getExperiment,
  getExperimentInfo,
  getExperimentRuns,
  listExperiments,
  resumeEvaluation,
  resumeExperiment,
  runExperiment,
} from '@arizeai/phoenix-client/experiments';
import { suite } from 'uvu';
// Shipped in the package but left out of its `datasets` entry point (6.14.2): loaded from the files.
import { getDatasetInfoByName } from '../../../node_modules/@arizeai/phoenix-client/dist/esm/datasets/getDatasetInfoByName.js';
import { listDatasets } from '../../../node_modules/@arizeai/phoenix-client/dist/esm/datasets/listDatasets.js';
import * as assert from 'uvu/assert';
import { callJson, eventually } from '../../support/restClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Ctx = { server: TestServer; client: ReturnType<typeof createClient> };
const test = suite<Ctx>('@arizeai/phoenix-client datasets and experiments against Loupe', {} as Ctx);
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.client = createClient({ options: { baseUrl: ctx.server.baseUrl } });
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const quiet = { debug: () => {}, info: () => {}, log: () => {}, warn: () => {}, error: () => {}, table: () => {} };

test('datasets: create, append, get, examples, info by id and name, list', async ({ client }) => {
  const { datasetId } = await createDataset({
    client,
    name: 'capitals',
    description: 'countries and capitals',
    examples: [
      { input: { country: 'France' }, output: { capital: 'Paris' }, metadata: { continent: 'EU' } },
      { input: { country: 'Japan' }, output: { capital: 'Tokyo' }, metadata: {}, splits: ['asia'] },
    ],
  });
  const appended = await appendDatasetExamples({
    client,
    dataset: { datasetId },
    examples: [{ input: { country: 'Peru' }, output: { capital: 'Lima' }, metadata: {} }],
  });
  assert.is(appended.datasetId, datasetId);
  const dataset = await getDataset({ client, dataset: { datasetName: 'capitals' } });
  assert.equal([dataset.id, dataset.name, dataset.examples.length, dataset.versionId], [datasetId, 'capitals', 3, appended.versionId]);
  const examples = await getDatasetExamples({ client, dataset: { datasetId } });
  assert.equal(
    examples.examples.map((e) => e.input.country),
    ['France', 'Japan', 'Peru'],
  );
  const asia = await getDatasetExamples({ client, dataset: { datasetId, splits: ['asia'] } });
  assert.equal(
    asia.examples.map((e) => e.input.country),
    ['Japan'],
  );
  assert.is((await getDatasetInfo({ client, dataset: { datasetId } })).name, 'capitals');
  assert.is((await getDatasetInfoByName({ client, datasetName: 'capitals' })).id, datasetId);
  assert.ok((await listDatasets({ client })).some((d) => d.id === datasetId));
});

test('experiments: create, get, info, runs, list, delete', async ({ client, server }) => {
  const { datasetId } = await createDataset({
    client,
    name: 'for-experiments',
    description: 'd',
    examples: [{ input: { q: 1 }, output: {}, metadata: {} }],
  });
  const experiment = await createExperiment({ client, datasetId, experimentName: 'manual', repetitions: 2 });
  const info = await getExperimentInfo({ client, experimentId: experiment.id });
  assert.equal([info.exampleCount, info.repetitions, info.missingRunCount], [1, 2, 2]);
  assert.match(info.projectName ?? '', /^Experiment-[0-9a-f]{24}$/);
  const example = (await getDatasetExamples({ client, dataset: { datasetId } })).examples[0]!;
  const run = await callJson(server, 'POST', `/v1/experiments/${experiment.id}/runs`, {
    dataset_example_id: example.id,
    output: 'out',
    repetition_number: 1,
    start_time: '2024-01-01T00:00:00Z',
    end_time: '2024-01-01T00:00:01Z',
  });
  assert.is(run.status, 200);
  const runs = await getExperimentRuns({ client, experimentId: experiment.id });
  assert.equal(
    runs.runs.map((r) => [r.output, r.datasetExampleId]),
    [['out', example.id]],
  );
  assert.is((await getExperiment({ client, experimentId: experiment.id })).runs[run.body.data.id]?.output, 'out');
  assert.ok((await listExperiments({ client, datasetId })).some((e) => e.id === experiment.id));
  await deleteExperiment({ client, experimentId: experiment.id });
  assert.is((await callJson(server, 'GET', `/v1/experiments/${experiment.id}`)).status, 404);
});

test('runExperiment end to end with a task and two evaluators; resume functions finish what failed half way', async ({
  client,
  server,
}) => {
  const { datasetId } = await createDataset({
    client,
    name: 'arithmetic',
    description: 'sums',
    examples: [1, 2, 3, 4].map((n) => ({ input: { n }, output: { double: n * 2 }, metadata: {} })),
  });
  let flaky = true;
  const exact = asEvaluator({
    name: 'exact',
    kind: 'CODE',
    evaluate: async ({ output, expected }) => ({ score: output === (expected as { double: number }).double ? 1 : 0, label: 'checked' }),
  });
  const judge = asEvaluator({
    name: 'judge',
    kind: 'LLM',
    evaluate: async ({ output }) => {
      if (flaky && (output as number) > 4) throw new Error('judge unavailable');
      return { score: 1, explanation: `saw ${output}` };
    },
  });
  const ran = await runExperiment({
    client,
    dataset: { datasetId },
    experimentName: 'doubling',
    task: async (example) => {
      const n = (example.input as { n: number }).n;
      if (flaky && n % 2 === 0) throw new Error(`cannot do ${n}`);
      return n * 2;
    },
    evaluators: [exact, judge],
    logger: quiet,
    concurrency: 2,
  });
  const experimentId = ran.id;
  const first = await getExperimentInfo({ client, experimentId });
  assert.equal([first.successfulRunCount, first.failedRunCount, first.missingRunCount], [2, 2, 0]);
  // The task's traces reach the experiment's project over OTLP.
  const project = encodeURIComponent(first.projectName!);
  await eventually(
    () => callJson(server, 'GET', `/v1/projects/${project}/spans?limit=100`),
    (r) => r.status === 200 && r.body.data.length >= 4,
  );
  // The first pass's eight evaluations (posted without waiting; failed runs are evaluated too); n=3 (output 6) has a failed judge.
  await eventually(
    () => callJson(server, 'GET', `/v1/experiments/${experimentId}/json`),
    (r) => r.status === 200 && r.body.reduce((n: number, row: { annotations: unknown[] }) => n + row.annotations.length, 0) === 8,
  );
  const missingJudge = await callJson(
    server,
    'GET',
    `/v1/experiments/${experimentId}/incomplete-evaluations?evaluation_name=exact&evaluation_name=judge`,
  );
  assert.equal(
    missingJudge.body.data.map((r: { dataset_example: { input: unknown }; evaluation_names: string[] }) => [
      r.dataset_example.input,
      r.evaluation_names,
    ]),
    [[{ n: 3 }, ['judge']]],
  );

  flaky = false;
  await resumeExperiment({ client, experimentId, task: async (example) => (example.input as { n: number }).n * 2, logger: quiet });
  const resumed = await getExperimentInfo({ client, experimentId });
  assert.equal([resumed.successfulRunCount, resumed.failedRunCount, resumed.missingRunCount], [4, 0, 0]);
  assert.equal((await callJson(server, 'GET', `/v1/experiments/${experimentId}/incomplete-runs`)).body.data, []);

  await resumeEvaluation({ client, experimentId, evaluators: [exact, judge], logger: quiet });
  await eventually(
    () => callJson(server, 'GET', `/v1/experiments/${experimentId}/incomplete-evaluations?evaluation_name=exact&evaluation_name=judge`),
    (r) => r.status === 200 && r.body.data.length === 0,
  );
  const exported = await callJson(server, 'GET', `/v1/experiments/${experimentId}/json`);
  assert.is(exported.body.length, 4);
  for (const row of exported.body) {
    assert.is(row.error, null);
    assert.equal(row.annotations.map((a: { name: string }) => a.name).sort(), ['exact', 'judge']);
    assert.ok(
      row.annotations.every((a: { error: string | null; score: number }) => a.error === null && a.score === 1),
      JSON.stringify(row),
    );
  }
});

test.run();
