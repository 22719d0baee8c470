import type { Decider, DomainEvent } from './decider.ts';
import { fold } from './decider.ts';
import type { EventStore } from './eventstore/types.ts';
import { loupeEvent } from './loupeEvent.ts';

export type Folded<State> = {
  readonly state: State;
  /** Revision of the last event read: what an append that depends on this state must expect. */
  readonly expected: 'no_stream' | number;
};

/**
 * Reads one stream and folds it through a decider: the aggregate's state as its own events say,
 * authoritative, never behind like a read model. The one place a stored event becomes a decider's
 * event (type and data, no metadata); the stream name decides which union its events belong to.
 */
export const readAndFold = async <State, Event extends DomainEvent>(
  store: EventStore,
  stream: string,
  decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
): Promise<Folded<State>> => {
  const stored = await store.readStream(stream);
  // Typed as the decider's events: the stream's name chose the decider. (Deciders that fold another
  // aggregate's stream, as telemetry deletion and annotations fold a project's, take any event in `evolve`.)
  const events = stored.map((e) => loupeEvent(e) as Event);
  const state = fold(decider, events);
  return { state, expected: stored.length === 0 ? 'no_stream' : stored[stored.length - 1]!.revision };
};

/** Only the state, for reads that append nothing. */
export const loadState = async <State, Event extends DomainEvent>(
  store: EventStore,
  stream: string,
  decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
): Promise<State> => (await readAndFold(store, stream, decider)).state;
