import type { AlertEvent } from './alerts/events.ts';
import type { AnnotationEvent } from './annotations/events.ts';
import type { ApiKeyEvent } from './apiKeys/events.ts';
import type { AnyDatasetEvent } from './datasets/events.ts';
import type { EvaluationFailed, EvaluatorEvent } from './evaluators/events.ts';
import type { AnyExperimentEvent } from './experiments/events.ts';
import type { UserEvent } from './identity/events.ts';
import type { UniqueValueEvent } from './identity/uniqueValueDecider.ts';
import type { ProjectionDecisionEvent } from './operations/events.ts';
import type { ProjectEvent } from './projects/events.ts';
import type { PromptEvent, PromptLabelEvent } from './prompts/events.ts';
import type { PriceEvent } from './prices/events.ts';
import type { SavedFilterEvent } from './savedFilters/events.ts';
import type { RetentionEvent } from './retention/events.ts';
import type { SecretsEvent } from './secrets/events.ts';
import type { TracingEvent } from './tracing/events.ts';

/** Every event Loupe writes: the vocabulary of the audit log. */
export type LoupeEvent =
  | UserEvent
  | UniqueValueEvent
  | ApiKeyEvent
  | SecretsEvent
  | ProjectEvent
  | TracingEvent
  | ProjectionDecisionEvent
  | AnnotationEvent
  | PromptEvent
  | PromptLabelEvent
  | AnyDatasetEvent
  | AnyExperimentEvent
  | PriceEvent
  | SavedFilterEvent
  | RetentionEvent
  | AlertEvent
  | EvaluatorEvent
  | EvaluationFailed;

export type LoupeEventType = LoupeEvent['type'];
