import { createClient } from '@arizeai/phoenix-client';
import { createDataset } from '@arizeai/phoenix-client/datasets';
import { runExperiment } from '@arizeai/phoenix-client/experiments';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEvaluator } from '../../support/evaluatorFixtures.ts';
import { callJson, eventually } from '../../support/restClient.ts';
import { startTestServer } from '../../support/testServer.ts';

const test = suite('evaluators on a dataset');

const quiet = { debug: () => {}, info: () => {}, log: () => {}, warn: () => {}, error: () => {}, table: () => {} };

test('a dataset evaluator judges every run of an experiment that runExperiment recorded without evaluators', async () => {
  const server = await startTestServer();
  try {
    const client = createClient({ options: { baseUrl: server.baseUrl } });
    const { datasetId } = await createDataset({
      client,
      name: 'doubling',
      description: 'n and 2n',
      examples: [1, 2, 3, 4].map((n) => ({ input: { n }, output: { double: n * 2 }, metadata: {} })),
    });
    const evaluatorId = await createEvaluator(
      server,
      'doubled',
      'export function evaluate({ output, expected }) { return { score: output === expected.double ? 1 : 0, label: output === expected.double ? "right" : "wrong" }; }',
    );
    const bad = await callJson(server, 'POST', `/v1/datasets/${datasetId}/evaluators`, { evaluator_id: 'nope' });
    assert.is(bad.status, 422, bad.text);
    assert.match(bad.body.detail, /^body\.evaluator_id: /);
    const unmapped = await callJson(server, 'POST', `/v1/datasets/${datasetId}/evaluators`, {
      evaluator_id: evaluatorId,
      input_mapping: { path_mapping: { output: 'attributes.output.value' } },
    });
    assert.is(unmapped.status, 422, unmapped.text);
    assert.match(unmapped.body.detail, /^body\.input_mapping\.path_mapping\.output: "attributes\.output\.value" maps to nothing/);
    const attached = await callJson(server, 'POST', `/v1/datasets/${datasetId}/evaluators`, { evaluator_id: evaluatorId });
    assert.is(attached.status, 200, attached.text);
    assert.is(attached.body.data.annotation_name, 'doubled');
    assert.is((await callJson(server, 'GET', `/v1/datasets/${datasetId}/evaluators`)).body.data.length, 1);

    const ran = await runExperiment({
      client,
      dataset: { datasetId },
      experimentName: 'client without evaluators',
      task: async (example) => {
        const n = (example.input as { n: number }).n;
        return n === 3 ? 7 : n * 2;
      },
      logger: quiet,
    });
    const incomplete = await eventually(
      () => callJson(server, 'GET', `/v1/experiments/${ran.id}/incomplete-evaluations?evaluation_name=doubled`),
      (r) => r.status === 200 && r.body.data.length === 0,
    );
    assert.equal(incomplete.body.data, []);
    const rows = (await callJson(server, 'GET', `/v1/experiments/${ran.id}/json`)).body as {
      output: number;
      annotations: { name: string; label: string; score: number; annotator_kind: string }[];
    }[];
    assert.is(rows.length, 4);
    assert.equal(
      rows.map((r) => [r.output, r.annotations.map((a) => [a.name, a.annotator_kind, a.label, a.score])]).sort(),
      [
        [2, [['doubled', 'CODE', 'right', 1]]],
        [4, [['doubled', 'CODE', 'right', 1]]],
        [7, [['doubled', 'CODE', 'wrong', 0]]],
        [8, [['doubled', 'CODE', 'right', 1]]],
      ].sort(),
    );
  } finally {
    await server.close();
  }
});

test.run();
