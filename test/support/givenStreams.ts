import type { DomainEvent } from '../../domain/decider.ts';
import { eventMetadata } from '../../domain/eventMetadata.ts';
import type { EventStore, Position } from '../../domain/eventstore/types.ts';

/** Events appended to one stream, in order: the "given" of a projection or HTTP specification. */
export type GivenStream = {
  readonly stream: string;
  readonly events: readonly DomainEvent[];
  /** Who appended them (the metadata's actor); `test` unless given. */
  readonly actor?: string;
};

export const inStream = (stream: string, ...events: readonly DomainEvent[]): GivenStream => ({ stream, events });

/** The time every given event is stamped with, so rows that record it are predictable. */
export const GIVEN_TIME = new Date('2024-02-01T00:00:00Z');

/** Appends the history as it is written (no decider runs); the position of the last event, or null. */
export const appendGiven = async (store: EventStore, history: readonly GivenStream[]): Promise<Position | null> => {
  let last: Position | null = null;
  for (const { stream, events, actor } of history) {
    const metadata = eventMetadata({ actor: actor ?? 'test', requestId: null }, 'given', GIVEN_TIME);
    if (events.length === 0) continue;
    const appended = await store.appendToStream(
      stream,
      events.map((e) => ({ type: e.type, data: e.data, metadata })),
      'any',
    );
    last = appended.position;
  }
  return last;
};
