import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, eventually, seed } from '../../support/restClient.ts';
import { attrs, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { freshDatabase } from '../../support/database.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { startJudgeOpenAi } from '../../peers/judgeOpenAi.ts';

const test = suite('online evaluation on a project');

const NOW = () => new Date().toISOString();

const span = (kind: string, output: string) =>
  spanRecord({
    traceId: newTraceId(),
    spanKind: kind,
    startTimeUnixNano: nanos(NOW()),
    endTimeUnixNano: nanos(NOW()),
    attributes: attrs({ 'openinference.span.kind': kind, 'input.value': 'question', 'output.value': output }),
  });

const createEvaluator = async (server: TestServer, name: string, source: string): Promise<string> => {
  const created = await callJson(server, 'POST', '/v1/evaluators', { name, kind: 'CODE', source_code: source });
  assert.is(created.status, 200, created.text);
  return created.body.data.id;
};

const attach = async (server: TestServer, project: string, evaluatorId: string, extra: Record<string, unknown> = {}) => {
  const attached = await callJson(server, 'POST', `/v1/projects/${project}/evaluators`, { evaluator_id: evaluatorId, ...extra });
  assert.is(attached.status, 200, attached.text);
  return attached.body.data;
};

type Annotation = { name: string; span_id: string; annotator_kind: string; result: { label: string | null; score: number | null } };

const annotationsOf = async (server: TestServer, project: string, spanIds: readonly string[]): Promise<Annotation[]> => {
  const query = spanIds.map((id) => `span_ids=${id}`).join('&');
  const listed = await callJson(server, 'GET', `/v1/projects/${project}/span_annotations?${query}&limit=1000`);
  return listed.status === 200 ? listed.body.data : [];
};

const failuresOf = async (server: TestServer, evaluatorId: string) =>
  (await callJson(server, 'GET', `/v1/evaluators/${encodeURIComponent(evaluatorId)}/failures`)).body as {
    data: { target_id: string; error: string }[];
    total: number;
  };

test('a code evaluator with a filter annotates each matching span once, and no span outside the filter', async () => {
  const server = await startTestServer();
  try {
    await callJson(server, 'POST', '/v1/projects', { name: 'shop' });
    const evaluatorId = await createEvaluator(
      server,
      'polite',
      'export function evaluate({ output }) { const ok = output.includes("please"); return { label: ok ? "polite" : "rude", score: ok ? 1 : 0, explanation: "looked for please" }; }',
    );
    await attach(server, 'shop', evaluatorId, { filter: "span_kind == 'LLM'", sampling_rate: 1 });
    const llm = [span('LLM', 'yes please'), span('LLM', 'no'), span('LLM', 'please wait')];
    const chains = [span('CHAIN', 'please'), span('CHAIN', 'x')];
    await seed(server, 'shop', [...llm, ...chains]);
    const all = [...llm, ...chains].map((s) => s.spanId);
    const judged = await eventually(
      () => annotationsOf(server, 'shop', all),
      (a) => a.length >= 3,
    );
    assert.equal(
      judged.map((a) => [a.span_id, a.name, a.annotator_kind, a.result.label, a.result.score]).sort(),
      [
        [llm[0]!.spanId, 'polite', 'CODE', 'polite', 1],
        [llm[1]!.spanId, 'polite', 'CODE', 'rude', 0],
        [llm[2]!.spanId, 'polite', 'CODE', 'polite', 1],
      ].sort(),
    );
    // More spans later are judged too; the first ones never again (one event per evaluation in the log).
    const later = span('LLM', 'please');
    await seed(server, 'shop', [later]);
    await eventually(
      () => annotationsOf(server, 'shop', [later.spanId]),
      (a) => a.length === 1,
    );
    const verdicts = (await server.store.readAll({ tx: 0n, seq: 0n }, 10_000)).filter(
      (e) => e.type === 'AnnotationsRecorded' && e.stream.startsWith('evaluation-'),
    );
    assert.is(verdicts.length, 4);
  } finally {
    await server.close();
  }
});

test('hostile code yields a recorded error per span, leaks nothing, and the other evaluators carry on', async () => {
  const server = await startTestServer();
  try {
    await callJson(server, 'POST', '/v1/projects', { name: 'hostile' });
    const hostile = {
      loop: 'export function evaluate() { for (;;) {} }',
      env: 'export function evaluate() { return String(process.env.SERVICE_SECRET); }',
      file: 'export function evaluate() { return require("fs").readFileSync("/etc/passwd", "utf8"); }',
      alloc: 'export function evaluate() { const a = []; for (;;) a.push(new Array(100000).fill(a.length)); }',
    };
    const ids: Record<string, string> = {};
    for (const [name, source] of Object.entries(hostile)) {
      ids[name] = await createEvaluator(server, name, source);
      await attach(server, 'hostile', ids[name]!);
    }
    const good = await createEvaluator(server, 'length', 'export function evaluate({ output }) { return output.length; }');
    await attach(server, 'hostile', good);
    const spans = [span('LLM', 'abc'), span('LLM', 'abcdef')];
    await seed(server, 'hostile', spans);
    const scored = await eventually(
      () =>
        annotationsOf(
          server,
          'hostile',
          spans.map((s) => s.spanId),
        ),
      (a) => a.length === 2,
    );
    assert.equal(scored.map((a) => a.result.score).sort(), [3, 6]);
    for (const [name, id] of Object.entries(ids)) {
      const failures = await eventually(
        () => failuresOf(server, id),
        (f) => f.total === 2,
      );
      for (const f of failures.data) assert.not.match(f.error, /root:|SERVICE_SECRET=|\/bin\/bash/, `${name} leaked: ${f.error}`);
    }
    assert.match((await failuresOf(server, ids.env!)).data[0]!.error, /process/);
    assert.match((await failuresOf(server, ids.loop!)).data[0]!.error, /interrupted/);
    assert.is((await callJson(server, 'GET', '/v1/projects')).status, 200);
  } finally {
    await server.close();
  }
});

test('after a restart nothing is judged twice, and spans sent meanwhile are judged', async () => {
  const database = await freshDatabase();
  let server = await startTestServer({ database });
  const first = span('LLM', 'one');
  try {
    await callJson(server, 'POST', '/v1/projects', { name: 'restart' });
    const id = await createEvaluator(server, 'len', 'export function evaluate({ output }) { return output.length; }');
    await attach(server, 'restart', id);
    await seed(server, 'restart', [first]);
    await eventually(
      () => annotationsOf(server, 'restart', [first.spanId]),
      (a) => a.length === 1,
    );
  } finally {
    await server.close();
  }
  server = await startTestServer({ database });
  try {
    const meanwhile = span('LLM', 'three');
    await seed(server, 'restart', [meanwhile]);
    await eventually(
      () => annotationsOf(server, 'restart', [meanwhile.spanId]),
      (a) => a.length === 1,
    );
    const verdicts = (await server.store.readAll({ tx: 0n, seq: 0n }, 10_000)).filter(
      (e) => e.type === 'AnnotationsRecorded' && e.stream.startsWith('evaluation-'),
    );
    assert.is(verdicts.length, 2);
  } finally {
    await server.close();
    await database.close();
  }
});

test('an LLM judge annotates each matching span once with the label and score its choices map to; 429s are retried', async () => {
  const judge = await startJudgeOpenAi({ refuseFirst: 2 });
  const server = await startTestServer({ env: { OPENAI_BASE_URL: judge.baseUrl, OPENAI_API_KEY: 'sk-judge' } });
  try {
    await callJson(server, 'POST', '/v1/projects', { name: 'judged' });
    const created = await callJson(server, 'POST', '/v1/evaluators', {
      name: 'correctness',
      kind: 'LLM',
      provider: 'OPENAI',
      model_name: 'gpt-4o-mini',
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
    const id = await createEvaluator(server, 'one', 'export function evaluate() { return 1; }');
    await attach(server, 'sampled', id, { sampling_rate: 0.25, annotation_name: 'quarter' });
    await attach(server, 'sampled', id, { sampling_rate: 0.5, annotation_name: 'half' });
    const spans = Array.from({ length: 200 }, () => span('LLM', 'x'));
    await seed(server, 'sampled', spans);
    const ids = spans.map((s) => s.spanId);
    const { isSampled } = await import('../../../domain/evaluators/sampling.ts');
    const expected = ids.filter((s) => isSampled(s, 0.5)).length + ids.filter((s) => isSampled(s, 0.25)).length;
    const all = await eventually(
      async () => (await Promise.all([ids.slice(0, 100), ids.slice(100)].map((part) => annotationsOf(server, 'sampled', part)))).flat(),
      (a) => a.length === expected,
    );
    const quarter = new Set(all.filter((a) => a.name === 'quarter').map((a) => a.span_id));
    const half = new Set(all.filter((a) => a.name === 'half').map((a) => a.span_id));
    assert.ok(quarter.size > 25 && quarter.size < 75, `25 %: ${quarter.size} of 200`);
    assert.ok(half.size > 70 && half.size < 130, `50 %: ${half.size} of 200`);
    for (const s of quarter) assert.ok(half.has(s), 'the 25 % set lies inside the 50 % set');
  } finally {
    await server.close();
  }
});

test.run();
