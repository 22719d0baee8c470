import type { AnnotationTarget, AnnotatorKind } from '../annotations/events.ts';
import type { JsonObject, JsonValue } from '../base/jsonValue.ts';
import type { RecordEvaluationOutcome } from './commands.ts';
import type { EvaluationTarget, EvaluatorDefinition, InputMapping } from './events.ts';
import { mappedArguments } from './inputMapping.ts';
import type { EvaluationResult } from './runEvaluator.ts';
import { isSampled } from './sampling.ts';

/**
 * Online and dataset evaluation's decisions, pure (the judging lane, projections/evaluators/, reads
 * the rows and the log, asks these, and does what they say): which new targets a project evaluator
 * takes, whether a queued evaluation is judged now, later or never, with which evaluator version
 * and which arguments, and what its outcome becomes.
 */

/** The targets one project evaluator takes of those its filter matched: the ones its rate samples (by hash, sampling.ts). */
export const sampledTargets = (samplingRate: number, matched: readonly string[]): string[] =>
  matched.filter((id) => isSampled(id, samplingRate));

/** How long after it is queued a target is first looked at: spans at once, traces and sessions after their delay. */
export const firstLookDelaySeconds = (target: EvaluationTarget, delaySeconds: number): number => (target === 'SPAN' ? 0 : delaySeconds);

/** One queued evaluation (a row of `evaluation_jobs`). */
export type EvaluationJob = {
  readonly attachmentId: number;
  readonly target: EvaluationTarget | 'RUN';
  readonly targetId: string;
  readonly attempts: number;
  /** A trace's or session's activity (its span or trace count and end) when it was last looked at. */
  readonly seenActivity: string | null;
};

/** The evaluator's use the job belongs to: on a project (online) or on a dataset (its experiments' runs). */
export type JudgingAttachment =
  | {
      readonly on: 'project';
      readonly id: number;
      readonly evaluatorId: number;
      readonly projectId: string;
      readonly enabled: boolean;
      readonly annotationName: string | null;
      readonly inputMapping: InputMapping;
      readonly delaySeconds: number;
    }
  | {
      readonly on: 'dataset';
      readonly id: number;
      readonly evaluatorId: number;
      readonly datasetId: string;
      readonly annotationName: string | null;
      readonly inputMapping: InputMapping;
    };

/** The evaluator's current version. */
export type JudgingEvaluator = {
  readonly id: number;
  readonly name: string;
  readonly version: number;
  readonly definition: EvaluatorDefinition;
};

/** Everything the decision looks at, as the lane found it just now. */
export type EvaluationSituation = {
  readonly job: EvaluationJob;
  /** Null: detached (or the evaluator deleted) since it was queued. */
  readonly attachment: JudgingAttachment | null;
  readonly evaluator: JudgingEvaluator | null;
  /** The target as an evaluator sees it (evaluationTargetQueries.ts); null once it is erased or expired. */
  readonly subject: JsonObject | null;
  /** A trace's or session's activity now (null for spans and runs). */
  readonly activity: string | null;
  /** A run's experiment (runs only). */
  readonly experimentId: string | null;
  /** Whether this evaluation (attachment, version, target) has its outcome in the log already. */
  readonly judged: boolean;
  readonly now: Date;
};

/** What identifies one evaluation, once per evaluator version (evaluatorStream.ts). */
export type EvaluationKey = {
  readonly attachmentId: number;
  readonly evaluatorId: number;
  readonly version: number;
  readonly target: EvaluationTarget | 'RUN';
  readonly targetId: string;
};

export type EvaluationDecision =
  /** Nothing to judge any more: the job leaves the queue. */
  | { readonly type: 'Drop'; readonly reason: 'detached' | 'disabled' | 'gone' | 'judged' }
  /** Not quiet yet (a trace or session still growing): looked at again at `until`. */
  | { readonly type: 'Wait'; readonly until: Date; readonly activity: string }
  | {
      readonly type: 'Judge';
      readonly key: EvaluationKey;
      readonly definition: EvaluatorDefinition;
      /** The evaluator's arguments (input, output, expected, metadata, template variables), and the whole subject as `span`. */
      readonly args: Readonly<Record<string, JsonValue>>;
      /** The annotation's (or experiment evaluation's) name. */
      readonly name: string;
      readonly annotatorKind: AnnotatorKind;
      /** The project (online) or the dataset (runs): where a failure is listed. */
      readonly owner: string;
      readonly experimentId: string | null;
    };

/** What an evaluator gets when its mapping names nothing else: OpenInference's input, output and metadata. */
export const DEFAULT_PATHS: Readonly<Record<EvaluationTarget | 'RUN', Readonly<Record<string, string>>>> = {
  SPAN: { input: 'attributes.input.value', output: 'attributes.output.value', metadata: 'attributes.metadata' },
  TRACE: { input: 'attributes.input.value', output: 'attributes.output.value', metadata: 'attributes.metadata' },
  SESSION: { input: 'input', output: 'output' },
  // An experiment run: the example's input, expected output and metadata, the run's output.
  RUN: { input: 'input', output: 'output', expected: 'expected', metadata: 'metadata' },
};

/**
 * A queued evaluation, now: dropped when its evaluator's use is gone or off, its target erased or
 * it was judged already (a restart, a takeover or a rebuild hands work out again; the log says it
 * is done, so no model is called twice); put off while a trace or session is still growing (it is
 * judged once it has been quiet for the delay: no new span or trace since the last look, which
 * was at least the delay ago); else judged with the evaluator's current version on its mapped arguments.
 */
export const decideEvaluation = (s: EvaluationSituation): EvaluationDecision => {
  const { job, attachment, evaluator } = s;
  if (attachment === null || evaluator === null || attachment.evaluatorId !== evaluator.id) return { type: 'Drop', reason: 'detached' };
  if (attachment.on === 'project' && !attachment.enabled) return { type: 'Drop', reason: 'disabled' };
  if (s.subject === null || (job.target === 'RUN' && s.experimentId === null)) return { type: 'Drop', reason: 'gone' };
  if (s.judged) return { type: 'Drop', reason: 'judged' };
  const quietFor = attachment.on === 'project' && job.target !== 'SPAN' && job.target !== 'RUN' ? attachment.delaySeconds : 0;
  if (quietFor > 0 && s.activity !== null && s.activity !== job.seenActivity)
    return { type: 'Wait', until: new Date(s.now.getTime() + quietFor * 1000), activity: s.activity };
  return {
    type: 'Judge',
    key: { attachmentId: attachment.id, evaluatorId: evaluator.id, version: evaluator.version, target: job.target, targetId: job.targetId },
    definition: evaluator.definition,
    args: { ...mappedArguments(s.subject, DEFAULT_PATHS[job.target], attachment.inputMapping), span: s.subject },
    name: attachment.annotationName ?? evaluator.name,
    annotatorKind: evaluator.definition.kind === 'LLM' ? 'LLM' : 'CODE',
    owner: attachment.on === 'project' ? attachment.projectId : attachment.datasetId,
    experimentId: job.target === 'RUN' ? s.experimentId : null,
  };
};

const ANNOTATION_TARGET: Record<EvaluationTarget, Exclude<AnnotationTarget, 'document'>> = {
  SPAN: 'span',
  TRACE: 'trace',
  SESSION: 'session',
};

export type RetryPolicy = {
  /** Tries of a refusal worth retrying (429, 5xx, timeouts) before the failure is recorded. */
  readonly maxAttempts: number;
  /** The first retry's pause; each next one doubles, up to `maxMs`. */
  readonly baseMs: number;
  readonly maxMs: number;
};

export type OutcomeDecision =
  | { readonly type: 'Record'; readonly command: RecordEvaluationOutcome }
  | { readonly type: 'Retry'; readonly inMs: number; readonly attempts: number; readonly error: string };

/**
 * What a judgment (or its failure) becomes: a target's verdict an annotation (annotator LLM or
 * CODE, with the evaluator and its version in its metadata), a run's an experiment evaluation; a
 * refusal worth retrying waits a doubling pause until its last try; any other failure, or the
 * last, is recorded (an `EvaluationFailed`, for a run also an evaluation with its error).
 */
export const evaluationOutcome = (
  judge: Extract<EvaluationDecision, { type: 'Judge' }>,
  result: EvaluationResult,
  attemptsBefore: number,
  times: { readonly start: string; readonly end: string },
  retry: RetryPolicy,
): OutcomeDecision => {
  const { key } = judge;
  const attempts = attemptsBefore + 1;
  if (!result.ok && result.retryable && attempts < retry.maxAttempts)
    return { type: 'Retry', inMs: Math.min(retry.maxMs, retry.baseMs * 2 ** (attempts - 1)), attempts, error: result.error };
  const failure = result.ok ? null : { ...key, projectId: judge.owner, error: result.error, attempts };
  if (key.target === 'RUN') {
    if (judge.experimentId === null) throw new Error('a run is judged with its experiment (decideEvaluation drops it otherwise)');
    const metadata = { evaluator_id: key.evaluatorId, evaluator_version: key.version, dataset_evaluator_id: key.attachmentId };
    const verdict = result.ok ? result.verdict : { label: null, score: null, explanation: null };
    return {
      type: 'Record',
      command: {
        type: 'RecordRunEvaluation',
        evaluation: {
          experimentId: judge.experimentId,
          runId: key.targetId,
          name: judge.name,
          annotatorKind: judge.annotatorKind,
          traceId: null,
          startTime: times.start,
          endTime: times.end,
          metadata,
          ...verdict,
          error: failure?.error ?? null,
        },
        failure,
      },
    };
  }
  if (failure !== null) return { type: 'Record', command: { type: 'RecordEvaluationFailure', ...failure } };
  if (!result.ok) throw new Error('unreachable');
  return {
    type: 'Record',
    command: {
      type: 'RecordEvaluationVerdict',
      annotation: {
        target: ANNOTATION_TARGET[key.target],
        targetId: key.targetId,
        documentPosition: null,
        name: judge.name,
        annotatorKind: judge.annotatorKind,
        label: result.verdict.label,
        score: result.verdict.score,
        explanation: result.verdict.explanation,
        metadata: { evaluator_id: key.evaluatorId, evaluator_version: key.version, project_evaluator_id: key.attachmentId },
        identifier: '',
      },
    },
  };
};
