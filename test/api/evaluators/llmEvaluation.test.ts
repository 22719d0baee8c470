import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startOpenAi } from '../../peers/openAi.ts';
import { annotationsOf, attach, span } from '../../support/evaluatorFixtures.ts';
import { callJson, seed } from '../../support/restClient.ts';
import { eventually } from '../../support/restClient.ts';
import { startTestServer } from '../../support/testServer.ts';

const test = suite('LLM evaluators and sampling');

test('an LLM judge annotates each matching span once with the label and score its choices map to; 429s are retried', async () => {
  const judge = await startOpenAi({ refuseFirst: 2 });
  const server = await startTestServer({ env: { OPENAI_BASE_URL: judge.baseUrl, OPENAI_API_KEY: 'sk-judge' } });
  try {
    await callJson(server, 'POST', '/v1/projects', { name: 'judged' });
    const created = await callJson(server, 'POST', '/v1/evaluators', {
      name: 'correctness',
      kind: 'LLM',
      provider: 'OPENAI',
      model_name: 'judge',
      template: [{ role: 'user', content: 'Question: {{input}}\nAnswer: {{output}}\nIs the answer correct?' }],
      output_config: { choices: { correct: 1, incorrect: 0 } },
    });
    assert.is(created.status, 200, created.text);
    await attach(server, 'judged', created.body.data.id, { filter: "span_kind == 'LLM'" });
    const llm = [span('LLM', 'right answer'), span('LLM', 'wrong answer')];
    const other = span('TOOL', 'wrong answer');
    await seed(server, 'judged', [...llm, other]);
    const judged = await eventually(
      () =>
        annotationsOf(
          server,
          'judged',
          [...llm, other].map((s) => s.spanId),
        ),
      (a) => a.length >= 2,
    );
    assert.equal(
      judged.map((a) => [a.span_id, a.annotator_kind, a.result.label, a.result.score]).sort(),
      [
        [llm[0]!.spanId, 'LLM', 'correct', 1],
        [llm[1]!.spanId, 'LLM', 'incorrect', 0],
      ].sort(),
    );
    // Two refusals, then one call per span: nothing judged twice, the tool offered, the stored key sent.
    assert.is(judge.received.length, 4);
    assert.is(judge.received[3]!.authorization, 'Bearer sk-judge');
    assert.is((judge.received[3]!.body.tools as { function: { name: string } }[])[0]!.function.name, 'record_judgment');
  } finally {
    await server.close();
    await judge.close();
  }
});

test('deterministic sampling: about 25 % and 50 % of the spans are judged, and the 25 % lie inside the 50 %', async () => {
  const server = await startTestServer();
  try {
    await callJson(server, 'POST', '/v1/projects', { name: 'sampled' });
    const created = await callJson(server, 'POST', '/v1/evaluators', { name: 'is-json', kind: 'BUILTIN', built_in: 'json_parseable' });
    const id = created.body.data.id;
    await attach(server, 'sampled', id, { sampling_rate: 0.25, annotation_name: 'quarter' });
    await attach(server, 'sampled', id, { sampling_rate: 0.5, annotation_name: 'half' });
    const spans = Array.from({ length: 80 }, () => span('LLM', '{}'));
    await seed(server, 'sampled', spans);
    const ids = spans.map((s) => s.spanId);
    const { isSampled } = await import('../../../domain/evaluators/sampling.ts');
    const expected = ids.filter((s) => isSampled(s, 0.5)).length + ids.filter((s) => isSampled(s, 0.25)).length;
    const all = await eventually(
      () => annotationsOf(server, 'sampled', ids),
      (a) => a.length === expected,
    );
    const quarter = new Set(all.filter((a) => a.name === 'quarter').map((a) => a.span_id));
    const half = new Set(all.filter((a) => a.name === 'half').map((a) => a.span_id));
    // 80 spans: the sizes only roughly (the domain spec checks them over 10,000 ids).
    assert.ok(quarter.size > 5 && quarter.size < 40, `25 %: ${quarter.size} of 80`);
    assert.ok(half.size > 20 && half.size < 60, `50 %: ${half.size} of 80`);
    for (const s of quarter) assert.ok(half.has(s), 'the 25 % set lies inside the 50 % set');
  } finally {
    await server.close();
  }
});

test.run();
