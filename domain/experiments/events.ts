import type { AnnotatorKind } from '../base/annotatorKind.ts';
import type { DomainEvent } from '../decider.ts';
import type { JsonObject, JsonValue } from '../base/jsonValue.ts';

/**
 * Events of one experiment's stream (`experiment-<experimentId>`). The examples it runs over are
 * named in the event (the version's examples, filtered by splits, when it was created), so the
 * read model never depends on when it replays the dataset's history.
 */
export type ExperimentCreated = DomainEvent<
  'ExperimentCreated',
  {
    readonly experimentId: string;
    readonly datasetId: string;
    readonly versionId: string;
    readonly name: string;
    readonly description: string | null;
    readonly metadata: JsonObject;
    readonly repetitions: number;
    /** The project the task's traces go to. */
    readonly projectName: string;
    readonly exampleIds: readonly string[];
  }
>;

/** Only the fields present change. */
export type ExperimentUpdated = DomainEvent<
  'ExperimentUpdated',
  { readonly experimentId: string; readonly name?: string; readonly description?: string | null; readonly metadata?: JsonObject }
>;

export type ExperimentDeleted = DomainEvent<'ExperimentDeleted', { readonly experimentId: string }>;

export type ExperimentEvent = ExperimentCreated | ExperimentUpdated | ExperimentDeleted;

/**
 * One run of one example and repetition, on its own stream
 * (`experiment-run-<experimentId>-<exampleId>-<repetition>`): runs of many workers never contend,
 * and a second successful run of the same example and repetition is refused by that stream. A
 * failed run is replaced by the next one (same `runId`).
 */
export type ExperimentRunRecorded = DomainEvent<
  'ExperimentRunRecorded',
  {
    readonly experimentId: string;
    readonly runId: string;
    readonly exampleId: string;
    readonly repetition: number;
    readonly output: JsonValue;
    readonly startTime: string;
    readonly endTime: string;
    readonly traceId: string | null;
    readonly error: string | null;
  }
>;

/**
 * An evaluation is an annotation on a run: name, annotator kind, label/score/explanation, metadata,
 * and the error when the evaluator failed. Upserted on (run, name): the later one wins. On a fresh
 * stream per request, as annotations are.
 */
export type ExperimentEvaluationRecorded = DomainEvent<
  'ExperimentEvaluationRecorded',
  {
    readonly experimentId: string;
    readonly runId: string;
    readonly name: string;
    readonly annotatorKind: AnnotatorKind;
    readonly label: string | null;
    readonly score: number | null;
    readonly explanation: string | null;
    readonly error: string | null;
    readonly metadata: JsonObject;
    readonly traceId: string | null;
    readonly startTime: string;
    readonly endTime: string;
  }
>;

export type ExperimentRunEvent = ExperimentRunRecorded;
export type AnyExperimentEvent = ExperimentEvent | ExperimentRunRecorded | ExperimentEvaluationRecorded;
