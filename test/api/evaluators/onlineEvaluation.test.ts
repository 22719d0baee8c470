import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, eventually, seed } from '../../support/restClient.ts';
import { annotationsOf, attach, createEvaluator, failuresOf, span } from '../../support/evaluatorFixtures.ts';
import { freshDatabase } from '../../support/database.ts';
import { startTestServer } from '../../support/testServer.ts';

const test = suite('online evaluation on a project');

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

test.run();
