import type { DomainEvent } from '../decider.ts';

/**
 * An operator's decision that one read model does without one event it could not apply
 * (`loupe projections skip`). It is an event in the log, not a row beside a read model, because
 * the log is what a rebuild replays: a rebuild reads these decisions first and leaves out the same
 * events, so rebuilt tables equal live ones; the decision also keeps who took it and when, and
 * travels with every export or copy of the log. The event it names stays in the log untouched.
 */
export type ProjectionEventSkipped = DomainEvent<
  'ProjectionEventSkipped',
  {
    readonly projection: string;
    readonly eventId: string;
    /** The skipped event's global position, `tx:seq`, and what it was (for people reading the log). */
    readonly position: string;
    readonly stream: string;
    readonly type: string;
    readonly reason: string | null;
  }
>;

export type ProjectionDecisionEvent = ProjectionEventSkipped;
