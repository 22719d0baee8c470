import { fold } from '../decider.ts';
import type { EventStore } from '../eventstore/types.ts';
import type { UserEvent } from './events.ts';
import { userDecider } from './userDecider.ts';
import type { UserState } from './userState.ts';
import { userStream } from './userStream.ts';

/** A user's state folded from their own stream: authoritative, never behind like a projection. */
export const loadUser = async (store: EventStore, userId: string): Promise<UserState> => {
  const events = await store.readStream(userStream(userId));
  return fold(userDecider, events.map((e) => ({ type: e.type, data: e.data }) as UserEvent));
};
