import type { ApiKeyEvent } from './apikeys/events.ts';
import type { UserEvent } from './identity/events.ts';
import type { UniqueValueEvent } from './identity/uniqueValueDecider.ts';
import type { ProjectEvent } from './projects/events.ts';
import type { SecretsEvent } from './secrets/events.ts';
import type { TracingEvent } from './tracing/events.ts';

/** Every event Loupe writes: the vocabulary of the audit log. */
export type LoupeEvent = UserEvent | UniqueValueEvent | ApiKeyEvent | SecretsEvent | ProjectEvent | TracingEvent;

export type LoupeEventType = LoupeEvent['type'];
