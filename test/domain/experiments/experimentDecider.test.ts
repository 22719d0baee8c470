import { test } from 'uvu';
import type { CreateExperiment } from '../../../domain/experiments/commands.ts';
import type { ExperimentEvent } from '../../../domain/experiments/events.ts';
import { experimentDecider, MAX_REPETITIONS } from '../../../domain/experiments/experimentDecider.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';

const spec = deciderSpec(experimentDecider);
const experimentId = '55555555-5555-4555-8555-555555555555';
const create: CreateExperiment = {
  type: 'CreateExperiment',
  experimentId,
  datasetId: '11111111-1111-4111-8111-111111111111',
  versionId: '22222222-2222-4222-8222-222222222222',
  name: 'baseline',
  description: null,
  metadata: { model: 'gpt' },
  repetitions: 2,
  projectName: 'Experiment-abc',
  exampleIds: ['e1', 'e2'],
};
const { type: _type, ...createdData } = create;
const created: ExperimentEvent = { type: 'ExperimentCreated', data: createdData };
const deleted: ExperimentEvent = { type: 'ExperimentDeleted', data: { experimentId } };

test('an experiment is created with what the command says', () => {
  spec.given([]).when(create).then([created]);
});

test('creating it again (a retried request) appends nothing', () => {
  spec.given([created]).when(create).then([]);
});

test('an empty name, or repetitions out of range, is refused', () => {
  spec
    .given([])
    .when({ ...create, name: '  ' })
    .thenThrows('invalid_experiment_name');
  spec
    .given([])
    .when({ ...create, repetitions: 0 })
    .thenThrows('invalid_repetitions');
  spec
    .given([])
    .when({ ...create, repetitions: MAX_REPETITIONS + 1 })
    .thenThrows('invalid_repetitions');
  spec
    .given([])
    .when({ ...create, repetitions: 1.5 })
    .thenThrows('invalid_repetitions');
});

test('an update records only what changed', () => {
  spec
    .given([created])
    .when({ type: 'UpdateExperiment', experimentId, name: 'tuned', description: null, metadata: { model: 'gpt' } })
    .then([{ type: 'ExperimentUpdated', data: { experimentId, name: 'tuned' } }]);
});

test('an update that changes nothing appends nothing', () => {
  spec
    .given([created, { type: 'ExperimentUpdated', data: { experimentId, name: 'tuned' } }])
    .when({ type: 'UpdateExperiment', experimentId, name: 'tuned' })
    .then([]);
});

test('an update checks the new name', () => {
  spec.given([created]).when({ type: 'UpdateExperiment', experimentId, name: '' }).thenThrows('invalid_experiment_name');
});

test('an experiment is deleted once; after that it is not found', () => {
  spec.given([created]).when({ type: 'DeleteExperiment', experimentId }).then([deleted]);
  spec.given([created, deleted]).when({ type: 'DeleteExperiment', experimentId }).thenThrows('experiment_not_found');
  spec.given([created, deleted]).when({ type: 'UpdateExperiment', experimentId, name: 'x' }).thenThrows('experiment_not_found');
});

test('an experiment that was never created is not found (a 404 at the edge)', () => {
  spec.given([]).when({ type: 'DeleteExperiment', experimentId }).thenThrows('experiment_not_found');
});

test.run();
