import { fold } from '../decider.ts';
import type { EventStore } from '../eventstore/types.ts';
import type { ProjectEvent } from './events.ts';
import { projectDecider } from './projectDecider.ts';
import type { ProjectState } from './projectState.ts';
import { projectStream } from './projectStream.ts';

/** A project's state folded from its own stream: authoritative, never behind like a read model. */
export const loadProject = async (store: EventStore, name: string): Promise<ProjectState> => {
  const events = await store.readStream(projectStream(name));
  return fold(projectDecider, events.map((e) => ({ type: e.type, data: e.data }) as ProjectEvent));
};
