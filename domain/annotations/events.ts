import type { DomainEvent } from '../decider.ts';
import type { AnnotatorKind } from '../base/annotatorKind.ts';
import type { JsonObject } from '../base/jsonValue.ts';

export { ANNOTATOR_KINDS, type AnnotatorKind } from '../base/annotatorKind.ts';

/** What an annotation is about. A document is one retrieved document of a span, by position. */
export type AnnotationTarget = 'span' | 'trace' | 'session' | 'document';

/** Where the annotation was made: through the REST API, or in the app (GraphQL / UI). */
export type AnnotationSource = 'API' | 'APP';

/**
 * One annotation as recorded. The target is named by its OpenTelemetry id (span id, trace id) or
 * session id, never by a read-model row id: the target may not have arrived yet (exporters and
 * annotators race), and the read model attaches the annotation once it does.
 * (target, targetId, documentPosition, name, identifier) is the upsert key: a later annotation
 * with the same key replaces the earlier one. Notes are annotations named `note` whose identifier
 * is unique per note unless the caller chose one.
 */
export type AnnotationRecord = {
  readonly target: AnnotationTarget;
  readonly targetId: string;
  /** 0-based, for documents only; null otherwise. */
  readonly documentPosition: number | null;
  readonly name: string;
  readonly annotatorKind: AnnotatorKind;
  readonly label: string | null;
  readonly score: number | null;
  readonly explanation: string | null;
  readonly metadata: JsonObject;
  readonly identifier: string;
};

/**
 * One request's annotations, however many (a batch of 10,000 is one event, like spans). The
 * author is the event's actor (metadata): a user, or an API key whose owner the read model knows.
 */
export type AnnotationsRecorded = DomainEvent<
  'AnnotationsRecorded',
  {
    readonly source: AnnotationSource;
    readonly annotations: readonly AnnotationRecord[];
    /** Annotations removed from this event since (retention, erasure): where they were, never what they held. */
    readonly erased?: readonly ErasedAnnotation[];
  }
>;

/**
 * Deletes the annotations of one project's spans, traces or sessions that match every filter
 * present (null = any). `authorUserId` narrows it to one author's annotations (a non-admin deletes
 * only their own). Times are ISO strings on the annotation's creation time: [from, before).
 */
export type AnnotationsDeleted = DomainEvent<
  'AnnotationsDeleted',
  {
    readonly projectId: string;
    readonly target: Exclude<AnnotationTarget, 'document'>;
    readonly name: string | null;
    readonly identifier: string | null;
    readonly annotatorKind: AnnotatorKind | null;
    readonly createdFrom: string | null;
    readonly createdBefore: string | null;
    readonly authorUserId: string | null;
  }
>;

/** The upsert key of an annotation: what names one annotation whatever its row id. */
export type AnnotationKey = Pick<AnnotationRecord, 'target' | 'targetId' | 'documentPosition' | 'name' | 'identifier'>;

/** Single annotations removed by their keys (the app's delete button; REST deletes by filter). */
export type AnnotationsRemoved = DomainEvent<'AnnotationsRemoved', { readonly annotations: readonly AnnotationKey[] }>;

/** Annotation configs: one stream for all of them (names are unique across configs; there are few). */
export type AnnotationConfigCreated = DomainEvent<
  'AnnotationConfigCreated',
  { readonly configId: number; readonly config: AnnotationConfigData }
>;
/** A full replacement. */
export type AnnotationConfigUpdated = DomainEvent<
  'AnnotationConfigUpdated',
  { readonly configId: number; readonly config: AnnotationConfigData }
>;
export type AnnotationConfigDeleted = DomainEvent<'AnnotationConfigDeleted', { readonly configId: number }>;
/** `projectId` is the project incarnation's uuid: deleting the project drops its assignments. */
export type AnnotationConfigAssigned = DomainEvent<'AnnotationConfigAssigned', { readonly configId: number; readonly projectId: string }>;
export type AnnotationConfigUnassigned = DomainEvent<
  'AnnotationConfigUnassigned',
  { readonly configId: number; readonly projectId: string }
>;

export type AnnotationConfigEvent =
  | AnnotationConfigCreated
  | AnnotationConfigUpdated
  | AnnotationConfigDeleted
  | AnnotationConfigAssigned
  | AnnotationConfigUnassigned;

export type AnnotationEvent = AnnotationsRecorded | AnnotationsDeleted | AnnotationsRemoved | AnnotationConfigEvent;

export type OptimizationDirection = 'MINIMIZE' | 'MAXIMIZE' | 'NONE';

export type AnnotationConfigType = 'CATEGORICAL' | 'CONTINUOUS' | 'FREEFORM';

/**
 * What an annotator may answer for a name: a label from a list (categorical), a score in a range
 * (continuous), or free text (freeform). The UI draws its controls from it.
 */
export type AnnotationConfigData =
  | {
      readonly type: 'CATEGORICAL';
      readonly name: string;
      readonly description: string | null;
      readonly optimizationDirection: OptimizationDirection;
      readonly values: readonly { readonly label: string; readonly score: number | null }[];
    }
  | {
      readonly type: 'CONTINUOUS';
      readonly name: string;
      readonly description: string | null;
      readonly optimizationDirection: OptimizationDirection;
      readonly lowerBound: number | null;
      readonly upperBound: number | null;
    }
  | {
      readonly type: 'FREEFORM';
      readonly name: string;
      readonly description: string | null;
      readonly optimizationDirection: OptimizationDirection | null;
      readonly threshold: number | null;
      readonly lowerBound: number | null;
      readonly upperBound: number | null;
    };

/**
 * What stays of an annotation removed from an `AnnotationsRecorded` event (retention, erasure):
 * only where it was, `at`, its slot among the event's annotations as the projector first met them
 * (`distinctAnnotations`: one per upsert key, in the order of their last occurrence). Nothing of its
 * content, not even its name or target. The projector hands out one row id per slot, so a rebuild
 * must count the removed ones too to give every later annotation the id it has live.
 * Events rewritten before stubs existed have none: their rebuild numbers later annotations from a
 * lower id, and nothing can restore that now (the content is gone); only new removals keep ids.
 */
export type ErasedAnnotation = { readonly at: number };
