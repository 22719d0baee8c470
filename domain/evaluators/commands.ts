import type { AnnotationRecord } from '../annotations/events.ts';
import type { EvaluatorDefinition } from './evaluatorDefinition.ts';
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

export type EvaluatorCommand =
  | CreateEvaluator
  | UpdateEvaluator
  | DeleteEvaluator
  | AttachProjectEvaluator
  | ChangeProjectEvaluator
  | DetachProjectEvaluator
  | BackfillProjectEvaluator;

/** The outcome of one evaluation: its verdict as an annotation, or the failure. Once only. */
export type RecordEvaluationOutcome =
  | { readonly type: 'RecordEvaluationVerdict'; readonly annotation: AnnotationRecord }
  | ({ readonly type: 'RecordEvaluationFailure' } & EvaluationFailed['data']);
