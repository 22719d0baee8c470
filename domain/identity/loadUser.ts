import type { EventStore } from '../eventstore/types.ts';
import { loadState } from '../readAndFold.ts';
import { userDecider } from './userDecider.ts';
import type { UserState } from './userState.ts';
import { userStream } from './userStream.ts';

/** A user's state folded from their own stream: authoritative, never behind like a projection. */
export const loadUser = async (store: EventStore, userId: string): Promise<UserState> => loadState(store, userStream(userId), userDecider);
