import type { AnnotationConfigData } from './annotationConfig.ts';
import type { AnnotationKey, AnnotationRecord, AnnotationSource, AnnotationsDeleted } from './events.ts';

/** One request's annotations (or notes: then every name is `note`), all or none. */
export type RecordAnnotations = {
  readonly type: 'RecordAnnotations';
  readonly source: AnnotationSource;
  readonly annotations: readonly AnnotationRecord[];
  readonly asNotes: boolean;
};

/** Judged against the project's lifecycle: it must still be the same, active project. */
export type DeleteAnnotations = { readonly type: 'DeleteAnnotations' } & AnnotationsDeleted['data'];

/** Whoever may remove them was decided by the caller (own annotations, or an admin's any). */
export type RemoveAnnotations = { readonly type: 'RemoveAnnotations'; readonly annotations: readonly AnnotationKey[] };

export type AnnotationCommand = RecordAnnotations | DeleteAnnotations | RemoveAnnotations;

export type CreateAnnotationConfig = { readonly type: 'CreateAnnotationConfig'; readonly config: AnnotationConfigData };
export type UpdateAnnotationConfig = {
  readonly type: 'UpdateAnnotationConfig';
  readonly configId: number;
  readonly config: AnnotationConfigData;
};
export type DeleteAnnotationConfig = { readonly type: 'DeleteAnnotationConfig'; readonly configId: number };
/** Replaces the whole set of configs assigned to the project. */
export type SetProjectAnnotationConfigs = {
  readonly type: 'SetProjectAnnotationConfigs';
  readonly projectId: string;
  readonly configIds: readonly number[];
};
export type AssignAnnotationConfig = { readonly type: 'AssignAnnotationConfig'; readonly projectId: string; readonly configId: number };
export type UnassignAnnotationConfig = { readonly type: 'UnassignAnnotationConfig'; readonly projectId: string; readonly configId: number };

export type AnnotationConfigCommand =
  | CreateAnnotationConfig
  | UpdateAnnotationConfig
  | DeleteAnnotationConfig
  | SetProjectAnnotationConfigs
  | AssignAnnotationConfig
  | UnassignAnnotationConfig;
