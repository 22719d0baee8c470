import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ExperimentRunRecord } from '../../../ui/src/lib/datasets/datasetsApi.ts';
import { exampleLabel } from '../../../ui/src/lib/datasets/exampleLabel.ts';
import { summarizeExperiment } from '../../../ui/src/lib/datasets/experimentSummary.ts';

/** The datasets pages' pure parts, without a browser: an experiment's row in the Experiments tab. */

const run = (over: Partial<ExperimentRunRecord>): ExperimentRunRecord => ({
  example_id: 'e',
  repetition_number: 1,
  input: {},
  reference_output: {},
  output: 'x',
  error: null,
  latency_ms: 100,
  annotations: [],
  ...over,
});

test('an experiment sums up as runs, errors, mean latency, tokens, mean scores and pass rates of labelling evaluators', () => {
  const summary = summarizeExperiment([
    run({
      latency_ms: 100,
      prompt_token_count: 10,
      completion_token_count: 5,
      annotations: [
        { name: 'correctness', label: 'correct', score: 1, error: null },
        { name: 'tone', label: 'polite', score: null, error: null },
      ],
    }),
    run({ latency_ms: 300, annotations: [{ name: 'correctness', label: 'incorrect', score: 0, error: null }] }),
    run({
      latency_ms: 200,
      error: 'RateLimitError',
      annotations: [
        { name: 'correctness', label: 'correct', score: 1, error: null },
        { name: 'tone', label: null, score: null, error: 'judge failed' },
      ],
    }),
  ]);
  assert.is(summary.runs, 3);
  assert.is(summary.errors, 1);
  assert.is(summary.meanLatencyMs, 200);
  assert.is(summary.tokens, 15, 'only the runs whose traces report tokens');
  assert.equal(summary.evaluators.correctness, { meanScore: 2 / 3, passRate: 2 / 3, count: 3 });
  // A label outside the known passing words, without a score, does not pass; a failed evaluation is not counted
  assert.equal(summary.evaluators.tone, { meanScore: null, passRate: 0, count: 1 });
});

test('an experiment without runs yet has no latency, tokens or evaluators', () => {
  assert.equal(summarizeExperiment([]), { runs: 0, errors: 0, meanLatencyMs: null, tokens: null, evaluators: {} });
});

test('an example known by its GlobalID reads #<row>; an external id, or any other text, as written', () => {
  assert.is(exampleLabel(Buffer.from('DatasetExample:42').toString('base64')), '#42');
  assert.is(exampleLabel('faq-7'), 'faq-7');
  // base64-looking external ids that decode to anything else stay as the uploader wrote them
  assert.is(exampleLabel('abcd'), 'abcd');
  assert.is(exampleLabel(Buffer.from('Span:42').toString('base64')), Buffer.from('Span:42').toString('base64'));
});

test.run();
