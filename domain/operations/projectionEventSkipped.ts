import type { DomainEvent } from '../decider.ts';
import { isEventOf } from '../loupeEvent.ts';

export type { ProjectionDecisionEvent, ProjectionEventSkipped } from './events.ts';

/** One stream holds every decision, so a rebuild or a starting runner reads them in one go. */
export const PROJECTION_DECISIONS_STREAM = 'projection-decisions';

/** Read model name → ids of the events it leaves out. */
export type SkipDecisions = ReadonlyMap<string, ReadonlySet<string>>;

/** Adds the skip decisions among `events` (events of other types are ignored) to `into`. */
export const foldSkipDecisions = (events: readonly DomainEvent[], into: Map<string, Set<string>> = new Map()): Map<string, Set<string>> => {
  for (const event of events) {
    if (!isEventOf(event, ['ProjectionEventSkipped'])) continue;
    const { projection, eventId } = event.data;
    let ids = into.get(projection);
    if (!ids) into.set(projection, (ids = new Set()));
    ids.add(eventId);
  }
  return into;
};
