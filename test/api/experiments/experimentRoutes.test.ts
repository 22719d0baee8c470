import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { httpSpec } from '../../support/httpSpec.ts';
import { callJson } from '../../support/restClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer }>('experiments over HTTP', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const times = { start_time: '2024-01-01T00:00:00Z', end_time: '2024-01-01T00:00:02.5Z' };

/** A dataset of `n` examples and an experiment on it; the examples' node ids. */
const setup = async (server: TestServer, name: string, n: number, repetitions = 1) => {
  const up = (
    await callJson(server, 'POST', '/v1/datasets/upload?sync=true', { name, inputs: Array.from({ length: n }, (_, i) => ({ i })) })
  ).body.data;
  const examples = (await callJson(server, 'GET', `/v1/datasets/${up.dataset_id}/examples`)).body.data.examples as { node_id: string }[];
  const experiment = (
    await callJson(server, 'POST', `/v1/datasets/${up.dataset_id}/experiments`, {
      name: `${name}-x`,
      repetitions,
      metadata: { model: 'm' },
    })
  ).body.data;
  return { datasetId: up.dataset_id as string, versionId: up.version_id as string, experiment, examples: examples.map((e) => e.node_id) };
};

test('given an experiment, when a run is posted, then ExperimentRunRecorded; a second successful run of it is a 409', async ({
  server,
}) => {
  const { experiment, examples } = await setup(server, 'runs', 1);
  assert.equal([experiment.example_count, experiment.repetitions, experiment.missing_run_count], [1, 1, 1]);
  const body = { dataset_example_id: examples[0], output: { answer: 42 }, repetition_number: 1, ...times };
  await httpSpec(server)
    .given()
    .when('POST', `/v1/experiments/${experiment.id}/runs`, { body })
    .then({
      status: 200,
      events: (events) => {
        assert.equal(
          events.map((e) => e.type),
          ['ExperimentRunRecorded'],
        );
        assert.equal((events[0]!.data as { output: unknown }).output, { answer: 42 });
      },
    });
  await httpSpec(server).given().when('POST', `/v1/experiments/${experiment.id}/runs`, { body }).then({ status: 409, events: [] });
  const runs = (await callJson(server, 'GET', `/v1/experiments/${experiment.id}/runs`)).body;
  assert.equal(
    runs.data.map((r: Record<string, unknown>) => [r.output, r.repetition_number, r.start_time, r.end_time, r.error]),
    [[{ answer: 42 }, 1, '2024-01-01T00:00:00+00:00', '2024-01-01T00:00:02.500000+00:00', null]],
  );
  const got = (await callJson(server, 'GET', `/v1/experiments/${experiment.id}`)).body.data;
  assert.equal([got.successful_run_count, got.failed_run_count, got.missing_run_count], [1, 0, 0]);
});

test('given a failed run, when it is run again, then the run keeps its id and becomes successful; resume lists follow', async ({
  server,
}) => {
  const { experiment, examples } = await setup(server, 'retry', 2, 2);
  const failed = await callJson(server, 'POST', `/v1/experiments/${experiment.id}/runs`, {
    dataset_example_id: examples[0],
    output: null,
    repetition_number: 2,
    error: 'timeout',
    ...times,
  });
  const incomplete = (await callJson(server, 'GET', `/v1/experiments/${experiment.id}/incomplete-runs`)).body.data;
  assert.equal(
    incomplete.map((r: { dataset_example: { node_id: string }; repetition_numbers: number[] }) => [
      r.dataset_example.node_id,
      r.repetition_numbers,
    ]),
    [
      [examples[0], [1, 2]],
      [examples[1], [1, 2]],
    ],
  );
  const retried = await callJson(server, 'POST', `/v1/experiments/${experiment.id}/runs`, {
    dataset_example_id: examples[0],
    output: 'ok',
    repetition_number: 2,
    ...times,
  });
  assert.equal([retried.status, retried.body.data.id], [200, failed.body.data.id]);
  const evaluation = await callJson(server, 'POST', '/v1/experiment_evaluations', {
    experiment_run_id: retried.body.data.id,
    name: 'quality',
    annotator_kind: 'LLM',
    result: { label: 'good', score: 0.9, explanation: 'fine' },
    ...times,
  });
  assert.is(evaluation.status, 200);
  const again = await callJson(server, 'POST', '/v1/experiment_evaluations', {
    experiment_run_id: retried.body.data.id,
    name: 'quality',
    annotator_kind: 'LLM',
    result: { score: 0.5 },
    ...times,
  });
  assert.is(again.body.data.id, evaluation.body.data.id, 'an evaluation is upserted on (run, name)');
  const missing = (
    await callJson(server, 'GET', `/v1/experiments/${experiment.id}/incomplete-evaluations?evaluation_name=quality&evaluation_name=safety`)
  ).body.data;
  assert.equal(
    missing.map((r: { evaluation_names: string[] }) => r.evaluation_names),
    [['safety']],
  );
  const csv = await (await fetch(`${server.baseUrl}/v1/experiments/${experiment.id}/csv`)).text();
  assert.match(csv.split('\n')[0]!, 'annotation_quality_score');
  assert.match(csv.split('\n')[1]!, ',0.5,');
});

test('bad input: an example not in the version is 422, unknown experiment 404, no evaluation name 400, neither result nor error 422', async ({
  server,
}) => {
  const { experiment } = await setup(server, 'strict', 1);
  const other = await setup(server, 'other', 1);
  const foreign = await callJson(server, 'POST', `/v1/experiments/${experiment.id}/runs`, {
    dataset_example_id: other.examples[0],
    output: 1,
    repetition_number: 1,
    ...times,
  });
  assert.equal([foreign.status, foreign.body.code], [422, 'example_not_in_experiment']);
  const unknown = Buffer.from('Experiment:999').toString('base64');
  assert.is((await callJson(server, 'GET', `/v1/experiments/${unknown}`)).status, 404);
  assert.is((await callJson(server, 'GET', '/v1/experiments/nope')).status, 422);
  assert.is((await callJson(server, 'GET', `/v1/experiments/${experiment.id}/incomplete-evaluations`)).status, 400);
  const badTime = await callJson(server, 'POST', `/v1/experiments/${experiment.id}/runs`, {
    dataset_example_id: other.examples[0],
    output: 1,
    repetition_number: 1,
    start_time: 'yesterday',
    end_time: times.end_time,
  });
  assert.is(badTime.status, 422);
  const run = await callJson(server, 'POST', `/v1/experiments/${experiment.id}/runs`, {
    dataset_example_id: (await callJson(server, 'GET', `/v1/experiments/${experiment.id}/incomplete-runs`)).body.data[0].dataset_example
      .node_id,
    output: 'x\u0000',
    repetition_number: 1,
    ...times,
  });
  assert.is(run.status, 200);
  const empty = await callJson(server, 'POST', '/v1/experiment_evaluations', {
    experiment_run_id: run.body.data.id,
    name: 'q',
    annotator_kind: 'CODE',
    ...times,
  });
  assert.is(empty.status, 422);
  const version = Buffer.from('DatasetVersion:999').toString('base64');
  const onUnknownVersion = await callJson(server, 'POST', `/v1/datasets/${other.datasetId}/experiments`, { version_id: version });
  assert.is(onUnknownVersion.status, 404);
  assert.is((await callJson(server, 'GET', `/v1/experiments/${experiment.id}/runs`)).body.data[0].output, 'x\ufffd');
});

test("an experiment's project and the evaluators' project are left out of the project lists unless asked for", async ({ server }) => {
  const { experiment } = await setup(server, 'hidden-projects', 1);
  const projectName = experiment.project_name as string;
  assert.match(projectName, /^Experiment-[0-9a-f]{24}$/);
  // The Phoenix client traces its evaluators into `evaluators`; a person's own project stays listed
  await callJson(server, 'POST', '/v1/projects', { name: 'evaluators' });
  await callJson(server, 'POST', '/v1/projects', { name: 'my-app' });
  const names = async (query: string) =>
    ((await callJson(server, 'GET', `/v1/projects${query}`)).body.data as { name: string }[]).map((p) => p.name);
  const listed = await names('');
  assert.ok(listed.includes('my-app') && listed.includes('default'), listed.join());
  assert.not.ok(listed.includes(projectName) || listed.includes('evaluators'), listed.join());
  const all = await names('?include_experiment_projects=true');
  assert.ok(all.includes(projectName) && all.includes('evaluators') && all.includes('my-app'), all.join());
  // GraphQL's list, which the Projects page reads, follows the same rule
  const graphql = async (include: boolean) =>
    (
      await callJson(server, 'POST', '/graphql', {
        query: `{ projects(first: 100, includeExperimentProjects: ${include}) { edges { node { name } } } }`,
      })
    ).body.data.projects.edges.map((e: { node: { name: string } }) => e.node.name) as string[];
  assert.not.ok((await graphql(false)).includes(projectName));
  assert.ok((await graphql(true)).includes(projectName));
});

test('patch and list: name and metadata change, experiments of a dataset newest first', async ({ server }) => {
  const { datasetId, experiment } = await setup(server, 'patchy', 1);
  const second = (await callJson(server, 'POST', `/v1/datasets/${datasetId}/experiments`, {})).body.data;
  assert.match(second.name, /^patchy-[0-9a-f]{8}$/);
  const patched = await callJson(server, 'PATCH', `/v1/experiments/${experiment.id}`, { name: 'renamed', metadata: { v: 2 } });
  assert.equal([patched.status, patched.body.data.name, patched.body.data.metadata], [200, 'renamed', { v: 2 }]);
  assert.is((await callJson(server, 'PATCH', `/v1/experiments/${experiment.id}`, {})).status, 422);
  const list = (await callJson(server, 'GET', `/v1/datasets/${datasetId}/experiments`)).body;
  assert.equal(
    list.data.map((e: { id: string }) => e.id),
    [second.id, experiment.id],
  );
});

test('tags: a tag names one experiment of the dataset; setting it on another moves it; removal is idempotent', async ({ server }) => {
  const { datasetId, experiment } = await setup(server, 'tagged', 1);
  const other = (await callJson(server, 'POST', `/v1/datasets/${datasetId}/experiments`, {})).body.data;
  const set = await callJson(server, 'POST', `/v1/experiments/${experiment.id}/tags`, { name: 'baseline', description: 'the one to beat' });
  assert.equal([set.status, set.body.data.name, set.body.data.description], [200, 'baseline', 'the one to beat']);
  await callJson(server, 'POST', `/v1/experiments/${other.id}/tags`, { name: 'baseline' });
  assert.equal((await callJson(server, 'GET', `/v1/experiments/${experiment.id}/tags`)).body.data, []);
  assert.equal(
    (await callJson(server, 'GET', `/v1/experiments/${other.id}/tags`)).body.data.map((t: { name: string }) => t.name),
    ['baseline'],
  );
  assert.is((await callJson(server, 'POST', `/v1/experiments/${other.id}/tags`, { name: 'Not An Identifier' })).status, 422);
  assert.is((await callJson(server, 'DELETE', `/v1/experiments/${other.id}/tags/baseline`)).status, 204);
  assert.is((await callJson(server, 'DELETE', `/v1/experiments/${other.id}/tags/baseline`)).status, 204);
  assert.equal((await callJson(server, 'GET', `/v1/experiments/${other.id}/tags`)).body.data, []);
});

test.run();
