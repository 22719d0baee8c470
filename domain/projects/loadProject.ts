import type { EventStore } from '../eventstore/types.ts';
import { loadState } from '../readAndFold.ts';
import { projectDecider } from './projectDecider.ts';
import type { ProjectState } from './projectState.ts';
import { projectStream } from './projectStream.ts';

/** A project's state folded from its own stream: authoritative, never behind like a read model. */
export const loadProject = (store: EventStore, name: string): Promise<ProjectState> =>
  loadState(store, projectStream(name), projectDecider);
