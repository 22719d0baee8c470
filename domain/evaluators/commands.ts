import type { AnnotationRecord } from '../annotations/events.ts';
import type { ExperimentEvaluationRecorded } from '../experiments/events.ts';
import type { EvaluatorDefinition } from './evaluatorDefinition.ts';
import type { InputMapping } from './inputMapping.ts';
import type { EvaluationFailed, ProjectEvaluatorSettings } from './events.ts';

export type CreateEvaluator = { readonly type: 'CreateEvaluator'; readonly definition: EvaluatorDefinition };
/** The whole definition, replaced (a PATCH merges before): a new version when anything changed. */
export type UpdateEvaluator = { readonly type: 'UpdateEvaluator'; readonly evaluatorId: number; readonly definition: EvaluatorDefinition };
export type DeleteEvaluator = { readonly type: 'DeleteEvaluator'; readonly evaluatorId: number };
export type AttachProjectEvaluator = {
  readonly type: 'AttachProjectEvaluator';
  readonly evaluatorId: number;
  readonly projectId: string;
  readonly settings: ProjectEvaluatorSettings;
};
export type ChangeProjectEvaluator = {
  readonly type: 'ChangeProjectEvaluator';
  readonly attachmentId: number;
  readonly settings: ProjectEvaluatorSettings;
};
export type DetachProjectEvaluator = { readonly type: 'DetachProjectEvaluator'; readonly attachmentId: number };
export type BackfillProjectEvaluator = {
  readonly type: 'BackfillProjectEvaluator';
  readonly attachmentId: number;
  readonly startTime: string;
  readonly endTime: string;
};

export type AttachDatasetEvaluator = {
  readonly type: 'AttachDatasetEvaluator';
  readonly evaluatorId: number;
  readonly datasetId: string;
  readonly inputMapping: InputMapping;
  readonly annotationName: string | null;
};
export type DetachDatasetEvaluator = { readonly type: 'DetachDatasetEvaluator'; readonly datasetEvaluatorId: number };

export type EvaluatorCommand =
  | CreateEvaluator
  | UpdateEvaluator
  | DeleteEvaluator
  | AttachProjectEvaluator
  | ChangeProjectEvaluator
  | DetachProjectEvaluator
  | BackfillProjectEvaluator
  | AttachDatasetEvaluator
  | DetachDatasetEvaluator;

/**
 * The outcome of one evaluation, once only: a target's verdict as an annotation, a run's as an
 * experiment evaluation (a failed one carries the failure too), or the failure.
 */
export type RecordEvaluationOutcome =
  | { readonly type: 'RecordEvaluationVerdict'; readonly annotation: AnnotationRecord }
  | {
      readonly type: 'RecordRunEvaluation';
      readonly evaluation: ExperimentEvaluationRecorded['data'];
      readonly failure: EvaluationFailed['data'] | null;
    }
  | ({ readonly type: 'RecordEvaluationFailure' } & EvaluationFailed['data']);
