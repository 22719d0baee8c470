import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EvaluatorDefinition } from '../../../domain/evaluators/evaluatorDefinition.ts';
import { evaluatorDecider } from '../../../domain/evaluators/evaluatorDecider.ts';
import { evaluationOutcomeDecider } from '../../../domain/evaluators/evaluationOutcomeDecider.ts';
import type { EvaluatorEvent, ProjectEvaluatorSettings } from '../../../domain/evaluators/events.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';

const spec = deciderSpec(evaluatorDecider);
const PROJECT = '0b0d0f00-0000-4000-8000-000000000001';

const contains: EvaluatorDefinition = {
  name: 'mentions-refund',
  description: null,
  kind: 'BUILTIN',
  builtIn: 'contains',
  parameters: { words: ['refund'] },
};
const created: EvaluatorEvent = { type: 'EvaluatorCreated', data: { evaluatorId: 1, version: 1, definition: contains } };
const settings: ProjectEvaluatorSettings = {
  target: 'SPAN',
  samplingRate: 0.1,
  filter: "span_kind == 'LLM'",
  inputMapping: { pathMapping: { output: 'attributes.output.value' }, literalMapping: {} },
  annotationName: null,
  delaySeconds: 0,
  enabled: true,
};
const attached: EvaluatorEvent = {
  type: 'ProjectEvaluatorAttached',
  data: { attachmentId: 1, evaluatorId: 1, projectId: PROJECT, settings },
};

test('given nothing, when an evaluator is created, then it gets the first id at version 1', () =>
  spec.given([]).when({ type: 'CreateEvaluator', definition: contains }).then([created]));

test('given an evaluator, when one of the same name is created, then it is refused', () =>
  spec.given([created]).when({ type: 'CreateEvaluator', definition: contains }).thenThrows('evaluator_exists'));

test('given nothing, when an unknown built-in or a bad pattern is created, then it is refused naming the field', () => {
  spec
    .given([])
    .when({ type: 'CreateEvaluator', definition: { ...contains, builtIn: 'toxicity' as never } })
    .thenThrows('invalid_evaluator');
  try {
    evaluatorDecider.decide(
      { type: 'CreateEvaluator', definition: { ...contains, builtIn: 'regex', parameters: { pattern: '(?=x)' } } },
      evaluatorDecider.initialState(),
    );
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, /^parameters: pattern is not a valid linear-time/);
  }
});

test('given an evaluator, when it is changed, then the next version; the same definition again is nothing', () => {
  const changed = { ...contains, parameters: { words: ['refund', 'return'] } };
  spec
    .given([created])
    .when({ type: 'UpdateEvaluator', evaluatorId: 1, definition: changed })
    .then([{ type: 'EvaluatorUpdated', data: { evaluatorId: 1, version: 2, definition: changed } }]);
  spec.given([created]).when({ type: 'UpdateEvaluator', evaluatorId: 1, definition: contains }).then([]);
});

test('given an evaluator on a project, when it is deleted, then its uses go first', () =>
  spec
    .given([created, attached])
    .when({ type: 'DeleteEvaluator', evaluatorId: 1 })
    .then([
      { type: 'ProjectEvaluatorDetached', data: { attachmentId: 1 } },
      { type: 'EvaluatorDeleted', data: { evaluatorId: 1 } },
    ]));

test('given an evaluator, when it is set on a project with bad settings, then each is refused', () => {
  spec.given([created]).when({ type: 'AttachProjectEvaluator', evaluatorId: 1, projectId: PROJECT, settings }).then([attached]);
  for (const bad of [{ samplingRate: -0.1 }, { samplingRate: Number.NaN }, { filter: 'name ==' }, { delaySeconds: 1.5 }])
    spec
      .given([created])
      .when({ type: 'AttachProjectEvaluator', evaluatorId: 1, projectId: PROJECT, settings: { ...settings, ...bad } })
      .thenThrows('invalid_project_evaluator');
  spec.given([]).when({ type: 'AttachProjectEvaluator', evaluatorId: 9, projectId: PROJECT, settings }).thenThrows('evaluator_not_found');
});

test('given an evaluator, when it is set on a dataset, then its own id; a path that maps to nothing is refused; deleting the evaluator detaches it', () => {
  const DATASET = '0b0d0f00-0000-4000-8000-0000000000d5';
  const onDataset: EvaluatorEvent = {
    type: 'DatasetEvaluatorAttached',
    data: {
      datasetEvaluatorId: 1,
      evaluatorId: 1,
      datasetId: DATASET,
      inputMapping: { pathMapping: { output: 'output.answer' }, literalMapping: {} },
      annotationName: null,
    },
  };
  spec
    .given([created])
    .when({
      type: 'AttachDatasetEvaluator',
      evaluatorId: 1,
      datasetId: DATASET,
      inputMapping: { pathMapping: { output: 'output.answer' }, literalMapping: {} },
      annotationName: null,
    })
    .then([onDataset]);
  spec
    .given([created])
    .when({
      type: 'AttachDatasetEvaluator',
      evaluatorId: 1,
      datasetId: DATASET,
      inputMapping: { pathMapping: { output: 'attributes.output.value' }, literalMapping: {} },
      annotationName: null,
    })
    .thenThrows('invalid_dataset_evaluator');
  spec
    .given([created, onDataset])
    .when({ type: 'DeleteEvaluator', evaluatorId: 1 })
    .then([
      { type: 'DatasetEvaluatorDetached', data: { datasetEvaluatorId: 1 } },
      { type: 'EvaluatorDeleted', data: { evaluatorId: 1 } },
    ]);
});

test('given an evaluation with an outcome, when another outcome comes, then nothing: judged once', () => {
  const outcome = deciderSpec(evaluationOutcomeDecider);
  const failure = {
    attachmentId: 1,
    evaluatorId: 1,
    version: 1,
    target: 'SPAN' as const,
    targetId: 'aaaaaaaaaaaaaaaa',
    projectId: PROJECT,
    error: 'InternalError: interrupted',
    attempts: 1,
  };
  outcome
    .given([])
    .when({ type: 'RecordEvaluationFailure', ...failure })
    .then([{ type: 'EvaluationFailed', data: failure }]);
  outcome
    .given([{ type: 'EvaluationFailed', data: failure }])
    .when({ type: 'RecordEvaluationFailure', ...failure })
    .then([]);
});

test.run();
