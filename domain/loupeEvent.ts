import type { DomainEvent } from './decider.ts';
import type { LoupeEvent, LoupeEventType } from './events.ts';

/** The event (or events) of the given type(s), with `data` typed accordingly. */
export type EventOf<T extends LoupeEventType> = Extract<LoupeEvent, { type: T }>;

/**
 * A stored event as the typed union of every event Loupe writes, in the shape a decider sees it
 * (`{ type, data }`, no metadata). Switch on `type` and TypeScript narrows `data`.
 *
 * This is the one place the log's untyped `data` is taken to have its type's shape, without a
 * check: the log only holds events this code wrote through typed deciders and command functions,
 * and a released shape never changes (a new shape is a new type or schema version with an
 * upcaster, handled before this point). Read models that must survive a hand-crafted event still
 * check the fields they store (e.g. projections/annotations/), and an event of a type unknown here
 * simply matches no `case`.
 */
export const loupeEvent = (event: DomainEvent): LoupeEvent => ({ type: event.type, data: event.data }) as LoupeEvent;

/**
 * Whether `event` is of one of `types`; narrows it (a StoredEvent keeps its position, stream and
 * metadata) so `data` is typed. Trusts `data` for the reason given at `loupeEvent`.
 */
export const isEventOf = <E extends DomainEvent, T extends LoupeEventType>(event: E, types: readonly T[]): event is E & EventOf<T> =>
  (types as readonly string[]).includes(event.type);
