import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  decideEvaluation,
  type EvaluationSituation,
  evaluationOutcome,
  firstLookDelaySeconds,
  type JudgingAttachment,
  type JudgingEvaluator,
  sampledTargets,
} from '../../../domain/evaluators/evaluationDecision.ts';

const PROJECT = '0b0d0f00-0000-4000-8000-000000000001';
const NOW = new Date('2026-01-01T00:00:00.000Z');
const evaluator: JudgingEvaluator = {
  id: 7,
  name: 'polite',
  version: 3,
  definition: { name: 'polite', description: null, kind: 'CODE', language: 'JAVASCRIPT', sourceCode: 'export const evaluate = () => 1' },
};
const online: JudgingAttachment = {
  on: 'project',
  id: 2,
  evaluatorId: 7,
  projectId: PROJECT,
  enabled: true,
  annotationName: null,
  inputMapping: { pathMapping: { question: 'attributes.input.value' }, literalMapping: { tone: 'formal' } },
  delaySeconds: 30,
};
const span = { span_id: 's1', name: 'chat', attributes: { 'input.value': '{"q":"hi"}', 'output.value': 'hello' } };
const given = (s: Partial<EvaluationSituation> = {}): EvaluationSituation => ({
  job: { attachmentId: 2, target: 'SPAN', targetId: 's1', attempts: 0, seenActivity: null },
  attachment: online,
  evaluator,
  subject: span,
  activity: null,
  experimentId: null,
  judged: false,
  now: NOW,
  ...s,
});
const RETRY = { maxAttempts: 3, baseMs: 1000, maxMs: 60_000 };
const TIMES = { start: '2026-01-01T00:00:00.000Z', end: '2026-01-01T00:00:01.000Z' };

test('given ids, when sampled at 10 % and at 25 %, then the 10 % ones are among the 25 % ones, and 0 takes none, 1 all', () => {
  const ids = Array.from({ length: 2000 }, (_, i) => `span-${i}`);
  const ten = sampledTargets(0.1, ids);
  const quarter = new Set(sampledTargets(0.25, ids));
  assert.ok(ten.every((id) => quarter.has(id)));
  assert.ok(ten.length > 150 && ten.length < 250, `${ten.length}`);
  assert.equal(sampledTargets(0, ids), []);
  assert.equal(sampledTargets(1, ids), ids);
});

test('given a span evaluator with a delay, when queued, then it is looked at at once; a trace after its delay', () => {
  assert.is(firstLookDelaySeconds('SPAN', 30), 0);
  assert.is(firstLookDelaySeconds('TRACE', 30), 30);
});

test('given an enabled project evaluator and a span, when due, then it is judged with the current version on the mapped arguments', () => {
  const d = decideEvaluation(given());
  assert.equal(d, {
    type: 'Judge',
    key: { attachmentId: 2, evaluatorId: 7, version: 3, target: 'SPAN', targetId: 's1' },
    definition: evaluator.definition,
    // the defaults (input, output, metadata), the path mapping (JSON text read as its value), the literals, the whole span
    args: { input: { q: 'hi' }, output: 'hello', metadata: null, question: { q: 'hi' }, tone: 'formal', span },
    name: 'polite',
    annotatorKind: 'CODE',
    owner: PROJECT,
    experimentId: null,
  });
});

test('given an outcome already in the log (a restart, a takeover, a rebuild), when due again, then it is dropped: no model is called twice', () =>
  assert.equal(decideEvaluation(given({ judged: true })), { type: 'Drop', reason: 'judged' }));

test('given a detached, a disabled or a deleted evaluator, or an erased span, when due, then it is dropped', () => {
  assert.equal(decideEvaluation(given({ attachment: null })), { type: 'Drop', reason: 'detached' });
  assert.equal(decideEvaluation(given({ evaluator: null })), { type: 'Drop', reason: 'detached' });
  assert.equal(decideEvaluation(given({ attachment: { ...online, enabled: false } })), { type: 'Drop', reason: 'disabled' });
  assert.equal(decideEvaluation(given({ subject: null })), { type: 'Drop', reason: 'gone' });
});

test('given a trace that grew since the last look, when due, then it waits the delay again; once quiet, it is judged', () => {
  const job = { attachmentId: 2, target: 'TRACE' as const, targetId: 't1', attempts: 0, seenActivity: '3:100' };
  assert.equal(decideEvaluation(given({ job, activity: '5:180' })), {
    type: 'Wait',
    until: new Date(NOW.getTime() + 30_000),
    activity: '5:180',
  });
  assert.is(decideEvaluation(given({ job, activity: '3:100' })).type, 'Judge');
  // without a delay a trace is judged when due, grown or not
  assert.is(decideEvaluation(given({ job, activity: '5:180', attachment: { ...online, delaySeconds: 0 } })).type, 'Judge');
});

test('given an LLM evaluator with an annotation name, when judged, then the annotation is named so and its annotator is LLM', () => {
  const llm: JudgingEvaluator = {
    ...evaluator,
    definition: {
      name: 'polite',
      description: null,
      kind: 'LLM',
      provider: 'OPENAI',
      modelName: 'gpt-4o-mini',
      invocationParameters: {},
      template: [{ role: 'user', content: '{{output}}' }],
      promptVersionId: null,
      templateFormat: 'MUSTACHE',
      outputConfig: { choices: { yes: 1, no: 0 }, optimizationDirection: 'MAXIMIZE' },
    },
  };
  const d = decideEvaluation(given({ evaluator: llm, attachment: { ...online, annotationName: 'tone' } }));
  assert.ok(d.type === 'Judge' && d.name === 'tone' && d.annotatorKind === 'LLM');
});

test('given a judgment, when it is a verdict, then it becomes a span annotation naming the evaluator version', () => {
  const judge = decideEvaluation(given());
  if (judge.type !== 'Judge') throw new Error('judged');
  const out = evaluationOutcome(judge, { ok: true, verdict: { label: 'polite', score: 1, explanation: 'said please' } }, 0, TIMES, RETRY);
  assert.equal(out, {
    type: 'Record',
    command: {
      type: 'RecordEvaluationVerdict',
      annotation: {
        target: 'span',
        targetId: 's1',
        documentPosition: null,
        name: 'polite',
        annotatorKind: 'CODE',
        label: 'polite',
        score: 1,
        explanation: 'said please',
        metadata: { evaluator_id: 7, evaluator_version: 3, project_evaluator_id: 2 },
        identifier: '',
      },
    },
  });
});

test('given a refusal worth retrying, when tries are left, then it is retried after a doubling pause; after the last, the failure is recorded', () => {
  const judge = decideEvaluation(given());
  if (judge.type !== 'Judge') throw new Error('judged');
  const refused = { ok: false as const, error: 'the provider answered 429', retryable: true };
  assert.equal(evaluationOutcome(judge, refused, 0, TIMES, RETRY), { type: 'Retry', inMs: 1000, attempts: 1, error: refused.error });
  assert.equal(evaluationOutcome(judge, refused, 1, TIMES, RETRY), { type: 'Retry', inMs: 2000, attempts: 2, error: refused.error });
  assert.equal(evaluationOutcome(judge, refused, 2, TIMES, RETRY), {
    type: 'Record',
    command: {
      type: 'RecordEvaluationFailure',
      attachmentId: 2,
      evaluatorId: 7,
      version: 3,
      target: 'SPAN',
      targetId: 's1',
      projectId: PROJECT,
      error: refused.error,
      attempts: 3,
    },
  });
  // code that threw is not retried
  const threw = evaluationOutcome(judge, { ok: false, error: 'boom', retryable: false }, 0, TIMES, RETRY);
  assert.is(threw.type, 'Record');
});

test('given a dataset evaluator and a run, when judged, then the verdict is an experiment evaluation of the run', () => {
  const DATASET = '0b0d0f00-0000-4000-8000-000000000002';
  const judge = decideEvaluation(
    given({
      job: { attachmentId: 4, target: 'RUN', targetId: 'r1', attempts: 0, seenActivity: null },
      attachment: {
        on: 'dataset',
        id: 4,
        evaluatorId: 7,
        datasetId: DATASET,
        annotationName: null,
        inputMapping: { pathMapping: {}, literalMapping: {} },
      },
      subject: { input: { q: 1 }, output: 'a', expected: 'a', metadata: {} },
      experimentId: 'x1',
    }),
  );
  if (judge.type !== 'Judge') throw new Error('judged');
  assert.equal(judge.args, {
    input: { q: 1 },
    output: 'a',
    expected: 'a',
    metadata: {},
    span: { input: { q: 1 }, output: 'a', expected: 'a', metadata: {} },
  });
  const out = evaluationOutcome(judge, { ok: true, verdict: { label: null, score: 1, explanation: null } }, 0, TIMES, RETRY);
  assert.ok(out.type === 'Record' && out.command.type === 'RecordRunEvaluation');
  assert.equal(out.command.evaluation.experimentId, 'x1');
  assert.is(out.command.failure, null);
});

test.run();
