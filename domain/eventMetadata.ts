import type { EventMetadata } from './eventstore/types.ts';

/** Who asks, on which request: what every command handler is given to stamp its events with. */
export type MetadataSource = {
  /** user id, `apikey:<id>`, or `system` */
  readonly actor: string;
  readonly requestId: string | null;
};

/**
 * The metadata of every event appended for one command: who, on which request, when, and which
 * command caused it. This is the audit trail (there is no separate audit table), so it is built in
 * one place; events appended together share one time.
 */
export const eventMetadata = (source: MetadataSource, causation: string, time: Date = new Date()): EventMetadata => ({
  actor: source.actor,
  requestId: source.requestId,
  time: time.toISOString(),
  causation,
});
