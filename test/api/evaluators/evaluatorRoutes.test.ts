import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '../../../domain/decider.ts';
import { dataOf, gql } from '../graphql/gqlClient.ts';
import { httpSpec } from '../../support/httpSpec.ts';
import { callJson } from '../../support/restClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer }>('evaluators over HTTP', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  assert.is((await callJson(ctx.server, 'POST', '/v1/projects', { name: 'judged' })).status, 200);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const code = (name: string, source = 'export function evaluate({ output }) { return output === "ok"; }') => ({
  name,
  kind: 'CODE',
  description: 'is it ok?',
  source_code: source,
});

const llm = (name: string) => ({
  name,
  kind: 'LLM',
  provider: 'OPENAI',
  model_name: 'gpt-4o-mini',
  template: [{ role: 'user', content: 'Is {{output}} an answer to {{input}}? Answer correct or incorrect.' }],
  output_config: { choices: { correct: 1, incorrect: 0 }, optimization_direction: 'MAXIMIZE' },
});

test('given nothing, when a code evaluator is created, then one event and the evaluator at version 1', async ({ server }) => {
  const out = await httpSpec(server)
    .given()
    .when('POST', '/v1/evaluators', { body: code('is-ok') })
    .then({
      status: 200,
      events: (events: readonly DomainEvent[]) => {
        assert.equal(
          events.map((e) => e.type),
          ['EvaluatorCreated'],
        );
        assert.equal((events[0]!.data as { definition: unknown }).definition, {
          name: 'is-ok',
          description: 'is it ok?',
          kind: 'CODE',
          language: 'JAVASCRIPT',
          sourceCode: code('is-ok').source_code,
        });
      },
    });
  const data = (out.body as { data: Record<string, unknown> }).data;
  assert.match(Buffer.from(String(data.id), 'base64').toString(), /^CodeEvaluator:\d+$/);
  assert.is(data.version, 1);
  assert.is(data.source_code, code('is-ok').source_code);
  assert.equal((await callJson(server, 'GET', '/v1/evaluators/is-ok')).body.data, data);
  assert.equal((await callJson(server, 'GET', `/v1/evaluators/${encodeURIComponent(String(data.id))}`)).body.data, data);
});

test('LLM and built-in evaluators are created; a PATCH is a new version; DELETE answers what it deleted', async ({ server }) => {
  const judge = await callJson(server, 'POST', '/v1/evaluators', llm('relevance'));
  assert.is(judge.status, 200, judge.text);
  assert.equal(judge.body.data.output_config, { choices: { correct: 1, incorrect: 0 }, optimization_direction: 'MAXIMIZE' });
  assert.match(Buffer.from(judge.body.data.id, 'base64').toString(), /^LLMEvaluator:/);
  const regex = await callJson(server, 'POST', '/v1/evaluators', {
    name: 'has-date',
    kind: 'BUILTIN',
    built_in: 'regex',
    parameters: { pattern: '\\d{4}-\\d{2}' },
  });
  assert.is(regex.status, 200, regex.text);
  const id = encodeURIComponent(regex.body.data.id);
  const patched = await callJson(server, 'PATCH', `/v1/evaluators/${id}`, { parameters: { pattern: '^\\d+$', full_match: true } });
  assert.is(patched.status, 200, patched.text);
  assert.is(patched.body.data.version, 2);
  assert.equal(patched.body.data.parameters, { pattern: '^\\d+$', full_match: true });
  const same = await callJson(server, 'PATCH', `/v1/evaluators/${id}`, { parameters: { pattern: '^\\d+$', full_match: true } });
  assert.is(same.body.data.version, 2, 'nothing changed: no new version');
  const listed = await callJson(server, 'GET', '/v1/evaluators');
  assert.ok(listed.body.data.some((e: { name: string }) => e.name === 'has-date'));
  const deleted = await callJson(server, 'DELETE', `/v1/evaluators/${id}`);
  assert.is(deleted.status, 200);
  assert.is(deleted.body.data.name, 'has-date');
  assert.is((await callJson(server, 'GET', `/v1/evaluators/${id}`)).status, 404);
});

test('malformed evaluators are 422s naming the problem, and nothing is appended', async ({ server }) => {
  const cases: [unknown, RegExp][] = [
    [code('broken', 'export function evaluate( {'), /^body\.source_code: the code does not parse: SyntaxError/],
    [{ name: 'nope', kind: 'BUILTIN', built_in: 'sentiment' }, /^body\.built_in: unknown built-in evaluator "sentiment"/],
    [
      { name: 'bad-re', kind: 'BUILTIN', built_in: 'regex', parameters: { pattern: '(a)\\1' } },
      /^body\.parameters: pattern is not a valid/,
    ],
    [{ name: 'what', kind: 'PYTHON', source_code: 'x' }, /^body\.kind: /],
    [{ ...llm('no-choices'), output_config: { choices: {} } }, /^body\.output_config\.choices: at least one choice/],
  ];
  for (const [body, message] of cases)
    await httpSpec(server)
      .given()
      .when('POST', '/v1/evaluators', { body })
      .then({
        status: 422,
        body: (b: { detail: string }) => assert.match(b.detail, message),
        events: [],
      });
  const dup = await callJson(server, 'POST', '/v1/evaluators', code('is-ok'));
  assert.is(dup.status, 409);
});

test('an evaluator on a project: created, read, changed and removed; bad settings are 422s naming the field', async ({ server }) => {
  const evaluator = await callJson(server, 'POST', '/v1/evaluators', code('on-project'));
  const body = {
    evaluator_id: evaluator.body.data.id,
    target: 'SPAN',
    sampling_rate: 0.25,
    filter: "span_kind == 'LLM'",
    input_mapping: { path_mapping: { output: 'attributes.output.value' }, literal_mapping: { threshold: 3 } },
  };
  const attached = await callJson(server, 'POST', '/v1/projects/judged/evaluators', body);
  assert.is(attached.status, 200, attached.text);
  assert.is(attached.body.data.annotation_name, 'on-project');
  assert.is(attached.body.data.sampling_rate, 0.25);
  const path = `/v1/projects/judged/evaluators/${encodeURIComponent(attached.body.data.id)}`;
  const changed = await callJson(server, 'PATCH', path, { enabled: false, sampling_rate: 0.5 });
  assert.is(changed.status, 200, changed.text);
  assert.equal([changed.body.data.enabled, changed.body.data.sampling_rate, changed.body.data.filter], [false, 0.5, "span_kind == 'LLM'"]);
  assert.is((await callJson(server, 'GET', '/v1/projects/judged/evaluators')).body.data.length, 1);

  const bad: [Record<string, unknown>, RegExp][] = [
    [{ sampling_rate: 1.5 }, /^body\.sampling_rate: /],
    [{ filter: 'span_kind ==' }, /^body\.filter: invalid filter/],
    [{ filter: "no_such_field == 'x'" }, /^body\.filter: invalid filter/],
    [{ evaluator_id: 'no-such-evaluator' }, /^body\.evaluator_id: no evaluator/],
    [
      { input_mapping: { path_mapping: { output: 'nowhere.output' } } },
      /^body\.input_mapping\.path_mapping\.output: "nowhere\.output" maps to nothing/,
    ],
  ];
  for (const [change, message] of bad)
    await httpSpec(server)
      .given()
      .when('POST', '/v1/projects/judged/evaluators', { body: { ...body, ...change } })
      .then({ status: 422, body: (b: { detail: string }) => assert.match(b.detail, message), events: [] });

  const backfill = await callJson(server, 'POST', `${path}/backfill`, {
    start_time: '2026-01-01T00:00:00Z',
    end_time: '2026-01-02T00:00:00Z',
  });
  assert.is(backfill.status, 202, backfill.text);
  const reversed = await callJson(server, 'POST', `${path}/backfill`, {
    start_time: '2026-01-02T00:00:00Z',
    end_time: '2026-01-01T00:00:00Z',
  });
  assert.is(reversed.status, 422, reversed.text);
  assert.is((await callJson(server, 'DELETE', path)).status, 200);
  assert.is((await callJson(server, 'GET', path)).status, 404);
});

test('GraphQL lists evaluators by the reference names, and a project its evaluators with their input mapping', async ({ server }) => {
  const judge = await callJson(server, 'POST', '/v1/evaluators', llm('gql-judge'));
  await callJson(server, 'POST', '/v1/projects', { name: 'gql' });
  await callJson(server, 'POST', '/v1/projects/gql/evaluators', {
    evaluator_id: judge.body.data.id,
    sampling_rate: 0.1,
    input_mapping: { path_mapping: { input: 'attributes.input.value' }, literal_mapping: { tone: 'strict' } },
  });
  const data = dataOf(
    await gql(
      server,
      `{ evaluators(first: 100) { edges { node { __typename id name kind version
           ... on LLMEvaluator { modelName outputConfig } ... on CodeEvaluator { sourceCode } } } }
         projects { edges { node { name evaluators { samplingRate inputMapping { pathMapping literalMapping } evaluator { name } } } } } }`,
    ),
  );
  const node = data.evaluators.edges
    .map((e: { node: Record<string, unknown> }) => e.node)
    .find((n: { name: string }) => n.name === 'gql-judge');
  assert.equal(node, {
    __typename: 'LLMEvaluator',
    id: judge.body.data.id,
    name: 'gql-judge',
    kind: 'LLM',
    version: 1,
    modelName: 'gpt-4o-mini',
    outputConfig: { choices: { correct: 1, incorrect: 0 }, optimizationDirection: 'MAXIMIZE' },
  });
  const project = data.projects.edges.find((e: { node: { name: string } }) => e.node.name === 'gql').node;
  assert.equal(project.evaluators, [
    {
      samplingRate: 0.1,
      inputMapping: { pathMapping: { input: 'attributes.input.value' }, literalMapping: { tone: 'strict' } },
      evaluator: { name: 'gql-judge' },
    },
  ]);
});

test.run();
