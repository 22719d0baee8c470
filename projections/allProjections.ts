import type { LoupeEventType } from '../domain/events.ts';
import { annotationsProjection } from './annotations/annotationsProjection.ts';
import { apiKeysProjection } from './apiKeys/apiKeysProjection.ts';
import { DATASET_EVENT_TYPES, DATASET_VOCABULARY_EVENT_TYPES, datasetsProjection } from './datasets/datasetsProjection.ts';
import { EXPERIMENT_EVENT_TYPES, experimentsProjection } from './experiments/experimentsProjection.ts';
import { savedFiltersProjection } from './savedFilters/savedFiltersProjection.ts';
import { secretsProjection } from './secrets/secretsProjection.ts';
import { usersProjection } from './identity/usersProjection.ts';
import type { Projection } from './projection.ts';
import { promptsProjection } from './prompts/promptsProjection.ts';
import { tracingProjection } from './tracing/tracingProjection.ts';

/**
 * The event types a read model reads. Only consulted while it is stopped, so that a
 * read-your-writes wait for an event it never reads is not refused (a logout or a new API key
 * while `tracing` is stopped). Missing a type here never skips an event; it only lets such a wait
 * through while that read model is stopped.
 */
const reading = (projection: Projection, eventTypes: readonly LoupeEventType[]): Projection => ({ ...projection, eventTypes });

/** Every read model the server keeps, in the order their migrations apply. */
export const allProjections = (): Projection[] => [
  reading(usersProjection, [
    'UserCreated',
    'UsernameChanged',
    'ExternalIdentityLinked',
    'EmailChanged',
    'PasswordChanged',
    'RoleChanged',
    'UserDeleted',
    'SessionStarted',
    'SessionRefreshed',
    'SessionsRevoked',
    'PasswordResetRequested',
  ]),
  reading(apiKeysProjection, ['ApiKeyIssued', 'ApiKeyRevoked', 'UserDeleted']),
  reading(secretsProjection, ['SecretsReplaced']),
  reading(tracingProjection, [
    'SpansIngested',
    'SpanDeleted',
    'TraceDeleted',
    'SessionDeleted',
    'ProjectCreated',
    'ProjectUpdated',
    'ProjectDeleted',
    'ModelPriceSet',
    'ModelPriceDeleted',
  ]),
  reading(annotationsProjection, [
    'AnnotationsRecorded',
    'AnnotationsDeleted',
    'AnnotationsRemoved',
    'AnnotationConfigCreated',
    'AnnotationConfigUpdated',
    'AnnotationConfigDeleted',
    'AnnotationConfigAssigned',
    'AnnotationConfigUnassigned',
    'SpansIngested',
    'SpanDeleted',
    'TraceDeleted',
    'SessionDeleted',
    'ProjectCreated',
    'ProjectDeleted',
    'ApiKeyIssued',
  ]),
  reading(promptsProjection, [
    'PromptCreated',
    'PromptVersionAdded',
    'PromptTagSet',
    'PromptTagRemoved',
    'PromptUpdated',
    'PromptLabelsSet',
    'PromptDeleted',
    'PromptLabelCreated',
    'PromptLabelUpdated',
    'PromptLabelDeleted',
  ]),
  reading(datasetsProjection, [...DATASET_EVENT_TYPES, ...DATASET_VOCABULARY_EVENT_TYPES]),
  reading(experimentsProjection, [...EXPERIMENT_EVENT_TYPES]),
  // Declares the events it reads itself.
  savedFiltersProjection,
];
