import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordExperimentEvaluation } from '../../../domain/experiments/commands.ts';
import { experimentEvaluationDecider } from '../../../domain/experiments/experimentEvaluationDecider.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';

const spec = deciderSpec(experimentEvaluationDecider);
const record: RecordExperimentEvaluation = {
  type: 'RecordExperimentEvaluation',
  experimentId: '55555555-5555-4555-8555-555555555555',
  runId: '66666666-6666-4666-8666-666666666666',
  name: 'correctness',
  annotatorKind: 'LLM',
  label: 'correct',
  score: 1,
  explanation: 'matches the reference',
  error: null,
  metadata: { judge: 'gpt' },
  traceId: null,
  startTime: '2024-01-01T00:00:00.000000Z',
  endTime: '2024-01-01T00:00:01.000000Z',
};
const { type: _type, ...data } = record;

test('an evaluation with a result is recorded as given', () => {
  spec
    .given([])
    .when(record)
    .then([{ type: 'ExperimentEvaluationRecorded', data }]);
});

test('an evaluation that only failed is recorded with its error', () => {
  const failed = { ...record, label: null, score: null, explanation: null, error: 'judge timed out' };
  const { type: _t, ...failedData } = failed;
  spec
    .given([])
    .when(failed)
    .then([{ type: 'ExperimentEvaluationRecorded', data: failedData }]);
});

test('an evaluation without a result and without an error is refused', () => {
  spec
    .given([])
    .when({ ...record, label: null, score: null, explanation: null, error: null })
    .thenThrows('empty_evaluation');
});

test('a missing name, an unknown annotator kind or a score that is not finite is refused', () => {
  spec
    .given([])
    .when({ ...record, name: '' })
    .thenThrows('invalid_evaluation_name');
  spec
    .given([])
    .when({ ...record, annotatorKind: 'ROBOT' as RecordExperimentEvaluation['annotatorKind'] })
    .thenThrows('invalid_annotator_kind');
  spec
    .given([])
    .when({ ...record, score: Number.NaN })
    .thenThrows('invalid_score');
  spec
    .given([])
    .when({ ...record, score: Number.POSITIVE_INFINITY })
    .thenThrows('invalid_score');
});

test('text is made storable: NUL characters in the label and explanation do not reach the log', () => {
  spec
    .given([])
    .when({ ...record, label: 'ok\u0000', explanation: 'a\u0000b' })
    .thenMatches(([event]) => {
      assert.not.ok(event!.data.label?.includes('\u0000'));
      assert.not.ok(event!.data.explanation?.includes('\u0000'));
    });
});

test.run();
