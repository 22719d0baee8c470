import type { AnnotatorKind } from '../annotations/events.ts';
import type { JsonObject, JsonValue } from '../base/jsonValue.ts';
import type { ExperimentCreated, ExperimentEvaluationRecorded } from './events.ts';

export type CreateExperiment = { readonly type: 'CreateExperiment' } & ExperimentCreated['data'];
export type UpdateExperiment = {
  readonly type: 'UpdateExperiment';
  readonly experimentId: string;
  readonly name?: string;
  readonly description?: string | null;
  readonly metadata?: JsonObject;
};
export type DeleteExperiment = { readonly type: 'DeleteExperiment'; readonly experimentId: string };
export type ExperimentCommand = CreateExperiment | UpdateExperiment | DeleteExperiment;

/** The example was checked by the caller to be one of the experiment's. `runId` is used for a first run. */
export type RecordExperimentRun = {
  readonly type: 'RecordExperimentRun';
  readonly experimentId: string;
  readonly runId: string;
  readonly exampleId: string;
  readonly repetition: number;
  readonly output: JsonValue;
  readonly startTime: string;
  readonly endTime: string;
  readonly traceId: string | null;
  readonly error: string | null;
};

export type RecordExperimentEvaluation = { readonly type: 'RecordExperimentEvaluation' } & ExperimentEvaluationRecorded['data'];
export type { AnnotatorKind };
