import type { DomainEvent } from '../decider.ts';
import type { EvaluatorDefinition } from './evaluatorDefinition.ts';
import type { InputMapping } from './inputMapping.ts';

export type EvaluationTarget = 'SPAN' | 'TRACE' | 'SESSION';
export const EVALUATION_TARGETS: readonly EvaluationTarget[] = ['SPAN', 'TRACE', 'SESSION'];

/** How an evaluator runs on a project's live traffic. */
export type ProjectEvaluatorSettings = {
  readonly target: EvaluationTarget;
  /** 0..1: the share of targets judged, chosen by a hash of the target's id (sampling.ts). */
  readonly samplingRate: number;
  /** The span filter language (empty: every target). */
  readonly filter: string;
  readonly inputMapping: InputMapping;
  /** The annotation's name (the evaluator's name when null). */
  readonly annotationName: string | null;
  /** Traces and sessions: judged once they have been quiet this long. */
  readonly delaySeconds: number;
  readonly enabled: boolean;
};

/** Ids are handed out by the one evaluators stream, in order, never reused. Each change is a new version. */
export type EvaluatorCreated = DomainEvent<
  'EvaluatorCreated',
  { readonly evaluatorId: number; readonly version: number; readonly definition: EvaluatorDefinition }
>;
export type EvaluatorUpdated = DomainEvent<
  'EvaluatorUpdated',
  { readonly evaluatorId: number; readonly version: number; readonly definition: EvaluatorDefinition }
>;
export type EvaluatorDeleted = DomainEvent<'EvaluatorDeleted', { readonly evaluatorId: number }>;

export type ProjectEvaluatorAttached = DomainEvent<
  'ProjectEvaluatorAttached',
  { readonly attachmentId: number; readonly evaluatorId: number; readonly projectId: string; readonly settings: ProjectEvaluatorSettings }
>;
export type ProjectEvaluatorChanged = DomainEvent<
  'ProjectEvaluatorChanged',
  { readonly attachmentId: number; readonly settings: ProjectEvaluatorSettings }
>;
export type ProjectEvaluatorDetached = DomainEvent<'ProjectEvaluatorDetached', { readonly attachmentId: number }>;
/** Judge the targets that started in [startTime, endTime) as if they had just arrived (ISO times). */
export type EvaluatorBackfillRequested = DomainEvent<
  'EvaluatorBackfillRequested',
  { readonly attachmentId: number; readonly startTime: string; readonly endTime: string }
>;

/** An evaluator judging every run recorded for an experiment of a dataset. */
export type DatasetEvaluatorAttached = DomainEvent<
  'DatasetEvaluatorAttached',
  {
    readonly datasetEvaluatorId: number;
    readonly evaluatorId: number;
    readonly datasetId: string;
    readonly inputMapping: InputMapping;
    /** The evaluation's name on each run (the evaluator's name when null). */
    readonly annotationName: string | null;
  }
>;
export type DatasetEvaluatorDetached = DomainEvent<'DatasetEvaluatorDetached', { readonly datasetEvaluatorId: number }>;

export type EvaluatorEvent =
  | EvaluatorCreated
  | EvaluatorUpdated
  | EvaluatorDeleted
  | ProjectEvaluatorAttached
  | ProjectEvaluatorChanged
  | ProjectEvaluatorDetached
  | EvaluatorBackfillRequested
  | DatasetEvaluatorAttached
  | DatasetEvaluatorDetached;

/**
 * An evaluation that could not be judged (code that threw or ran out of time, a provider that
 * kept refusing): recorded once, on the evaluation's own stream, in place of its verdict.
 */
export type EvaluationFailed = DomainEvent<
  'EvaluationFailed',
  {
    /** The project evaluator, or the dataset evaluator for a RUN. */
    readonly attachmentId: number;
    readonly evaluatorId: number;
    readonly version: number;
    readonly target: EvaluationTarget | 'RUN';
    readonly targetId: string;
    /** The project, or the dataset for a RUN. */
    readonly projectId: string;
    readonly error: string;
    readonly attempts: number;
  }
>;
