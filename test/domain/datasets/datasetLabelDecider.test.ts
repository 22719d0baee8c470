import { test } from 'uvu';
import { datasetLabelDecider } from '../../../domain/datasets/datasetVocabularyDecider.ts';
import type { DatasetLabelEvent } from '../../../domain/datasets/events.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';

const spec = deciderSpec(datasetLabelDecider);
const gold = { name: 'gold', color: '#1c76fc', description: null };
const silver = { name: 'silver', color: '#aaaaaa', description: 'second best' };
const goldCreated: DatasetLabelEvent = { type: 'DatasetLabelCreated', data: { labelId: 1, label: gold } };
const silverCreated: DatasetLabelEvent = { type: 'DatasetLabelCreated', data: { labelId: 2, label: silver } };

test('labels get ids in order, starting at 1', () => {
  spec.given([]).when({ type: 'CreateDatasetLabel', label: gold }).then([goldCreated]);
  spec.given([goldCreated]).when({ type: 'CreateDatasetLabel', label: silver }).then([silverCreated]);
});

test('an id is never reused, also after its label was deleted', () => {
  spec
    .given([goldCreated, silverCreated, { type: 'DatasetLabelDeleted', data: { labelId: 2 } }])
    .when({ type: 'CreateDatasetLabel', label: { ...silver, name: 'bronze' } })
    .then([{ type: 'DatasetLabelCreated', data: { labelId: 3, label: { ...silver, name: 'bronze' } } }]);
});

test('a second label with the same name is a conflict; renaming onto another label too', () => {
  spec.given([goldCreated]).when({ type: 'CreateDatasetLabel', label: gold }).thenThrows('dataset_label_exists');
  spec
    .given([goldCreated, silverCreated])
    .when({ type: 'UpdateDatasetLabel', labelId: 2, label: { ...silver, name: 'gold' } })
    .thenThrows('dataset_label_exists');
});

test('a label may keep its own name when updated', () => {
  spec
    .given([goldCreated])
    .when({ type: 'UpdateDatasetLabel', labelId: 1, label: { ...gold, color: '#000000' } })
    .then([{ type: 'DatasetLabelUpdated', data: { labelId: 1, label: { ...gold, color: '#000000' } } }]);
});

test('an empty name or a colour that is not #rrggbb is refused', () => {
  spec
    .given([])
    .when({ type: 'CreateDatasetLabel', label: { ...gold, name: ' ' } })
    .thenThrows('invalid_dataset_label');
  spec
    .given([])
    .when({ type: 'CreateDatasetLabel', label: { ...gold, color: 'blue' } })
    .thenThrows('invalid_dataset_label');
});

test('updating or deleting a label that does not exist (or no longer) is not found', () => {
  spec.given([]).when({ type: 'UpdateDatasetLabel', labelId: 1, label: gold }).thenThrows('dataset_label_not_found');
  spec
    .given([goldCreated, { type: 'DatasetLabelDeleted', data: { labelId: 1 } }])
    .when({ type: 'DeleteDatasetLabel', labelId: 1 })
    .thenThrows('dataset_label_not_found');
});

test('a label is deleted', () => {
  spec
    .given([goldCreated])
    .when({ type: 'DeleteDatasetLabel', labelId: 1 })
    .then([{ type: 'DatasetLabelDeleted', data: { labelId: 1 } }]);
});

test.run();
