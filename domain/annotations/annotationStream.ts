import { randomUUID } from 'node:crypto';

/**
 * A fresh stream per request, as for spans: annotators send concurrently (an LLM judge in many
 * workers) and must never contend for one stream's next revision. Upserts need no stream order:
 * the read model applies them in the log's global order, last one wins.
 */
export const annotationStream = (): string => `annotations-${randomUUID()}`;

/** Bulk deletions of one project's annotations: rare, user-driven, kept together for the audit trail. */
export const annotationDeletionStream = (projectId: string): string => `annotation-deletions-${projectId}`;

/** Every annotation config and its project assignments: names are unique across all configs, and there are few. */
export const ANNOTATION_CONFIGS_STREAM = 'annotation-configs';
