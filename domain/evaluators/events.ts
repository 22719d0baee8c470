import type { DomainEvent } from '../decider.ts';
import type { JsonObject } from '../base/jsonValue.ts';
import type { TemplateFormat } from '../base/templateFormat.ts';

export type EvaluatorKind = 'LLM' | 'CODE' | 'BUILTIN';
export type OptimizationDirection = 'MAXIMIZE' | 'MINIMIZE' | 'NONE';
export type { TemplateFormat };

/** One chat message of a judge's template, as the playground sends them. */
export type TemplateMessage = { readonly role: string; readonly content: string };

/** An LLM judge: the template is rendered with the mapped variables; the answer is one of `choices`. */
export type LlmEvaluatorSpec = {
  readonly kind: 'LLM';
  readonly provider: string;
  readonly modelName: string;
  readonly invocationParameters: JsonObject;
  readonly template: readonly TemplateMessage[] | null;
  readonly promptVersionId: string | null;
  readonly templateFormat: TemplateFormat;
  readonly outputConfig: { readonly choices: Readonly<Record<string, number>>; readonly optimizationDirection: OptimizationDirection };
};

/** JavaScript exporting `evaluate({input, output, expected, metadata, span})`, run in the sandbox. */
export type CodeEvaluatorSpec = { readonly kind: 'CODE'; readonly language: 'JAVASCRIPT'; readonly sourceCode: string };

/** One of the built-in checks (builtInEvaluators.ts, which the decider checks the name against) with its parameters. */
export type BuiltInEvaluatorSpec = { readonly kind: 'BUILTIN'; readonly builtIn: string; readonly parameters: JsonObject };

export type EvaluatorSpec = LlmEvaluatorSpec | CodeEvaluatorSpec | BuiltInEvaluatorSpec;

/** What an evaluator is, as its events carry it (camelCase; the wire's snake_case is the API's). */
export type EvaluatorDefinition = { readonly name: string; readonly description: string | null } & EvaluatorSpec;

/**
 * How an evaluator's arguments (`input`, `output`, `expected`, `metadata`, template variables) are
 * taken from what it judges: `pathMapping` names a path into the subject (a span's
 * `attributes.input.value`, a run's `output.answer`), `literalMapping` a fixed value.
 */
export type InputMapping = {
  readonly pathMapping: Readonly<Record<string, string>>;
  readonly literalMapping: JsonObject;
};

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
