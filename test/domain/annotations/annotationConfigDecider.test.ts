import { test } from 'uvu';
import type { AnnotationConfigData } from '../../../domain/annotations/annotationConfig.ts';
import { annotationConfigDecider } from '../../../domain/annotations/annotationConfigDecider.ts';
import type { AnnotationConfigEvent } from '../../../domain/annotations/events.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';

const spec = deciderSpec(annotationConfigDecider);
const P = '11111111-1111-4111-8111-111111111111';
const quality: AnnotationConfigData = {
  type: 'CATEGORICAL',
  name: 'quality',
  description: null,
  optimizationDirection: 'MAXIMIZE',
  values: [
    { label: 'good', score: 1 },
    { label: 'bad', score: 0 },
  ],
};
const score: AnnotationConfigData = {
  type: 'CONTINUOUS',
  name: 'score',
  description: null,
  optimizationDirection: 'NONE',
  lowerBound: 0,
  upperBound: 1,
};
const created = (configId: number, config: AnnotationConfigData): AnnotationConfigEvent => ({
  type: 'AnnotationConfigCreated',
  data: { configId, config },
});

test('given configs, when one more is created, then it gets the next id', () =>
  spec
    .given([created(1, quality), { type: 'AnnotationConfigDeleted', data: { configId: 1 } }])
    .when({ type: 'CreateAnnotationConfig', config: score })
    .then([created(2, score)]));

test('names are unique and "note" is reserved; a config keeps its own name on update', () => {
  spec
    .given([created(1, quality)])
    .when({ type: 'CreateAnnotationConfig', config: quality })
    .thenThrows('annotation_config_exists');
  spec
    .given([])
    .when({ type: 'CreateAnnotationConfig', config: { ...quality, name: 'note' } })
    .thenThrows('annotation_config_name_reserved');
  spec
    .given([created(1, quality), created(2, score)])
    .when({ type: 'UpdateAnnotationConfig', configId: 2, config: { ...score, name: 'quality' } })
    .thenThrows('annotation_config_exists');
  spec
    .given([created(1, quality)])
    .when({ type: 'UpdateAnnotationConfig', configId: 1, config: { ...quality, description: 'd' } })
    .then([{ type: 'AnnotationConfigUpdated', data: { configId: 1, config: { ...quality, description: 'd' } } }]);
});

test('categorical labels are unique and present; continuous bounds are ordered', () => {
  spec
    .given([])
    .when({
      type: 'CreateAnnotationConfig',
      config: {
        ...quality,
        values: [
          { label: 'a', score: null },
          { label: 'a', score: 1 },
        ],
      },
    })
    .thenThrows('invalid_annotation_config');
  spec
    .given([])
    .when({ type: 'CreateAnnotationConfig', config: { ...quality, values: [] } })
    .thenThrows('invalid_annotation_config');
  spec
    .given([])
    .when({ type: 'CreateAnnotationConfig', config: { ...score, lowerBound: 1, upperBound: 1 } })
    .thenThrows('invalid_annotation_config');
  spec
    .given([])
    .when({ type: 'CreateAnnotationConfig', config: { ...score, optimizationDirection: 'UP' as 'NONE' } })
    .thenThrows('invalid_annotation_config');
});

test('assigning is idempotent; setting the list emits only the differences', () => {
  spec
    .given([created(1, quality), { type: 'AnnotationConfigAssigned', data: { configId: 1, projectId: P } }])
    .when({ type: 'AssignAnnotationConfig', projectId: P, configId: 1 })
    .then([]);
  spec
    .given([created(1, quality)])
    .when({ type: 'UnassignAnnotationConfig', projectId: P, configId: 1 })
    .then([]);
  spec
    .given([created(1, quality), created(2, score), { type: 'AnnotationConfigAssigned', data: { configId: 1, projectId: P } }])
    .when({ type: 'SetProjectAnnotationConfigs', projectId: P, configIds: [2] })
    .then([
      { type: 'AnnotationConfigUnassigned', data: { configId: 1, projectId: P } },
      { type: 'AnnotationConfigAssigned', data: { configId: 2, projectId: P } },
    ]);
  spec
    .given([created(1, quality)])
    .when({ type: 'SetProjectAnnotationConfigs', projectId: P, configIds: [1, 7] })
    .thenThrows('annotation_config_not_found');
});

test('unknown configs cannot be changed', () => {
  spec.given([]).when({ type: 'DeleteAnnotationConfig', configId: 3 }).thenThrows('annotation_config_not_found');
  spec.given([]).when({ type: 'AssignAnnotationConfig', projectId: P, configId: 3 }).thenThrows('annotation_config_not_found');
});

test.run();
