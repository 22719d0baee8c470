import { randomUUID } from 'node:crypto';
import { isEventOf } from '../loupeEvent.ts';
import type { EventStore, Position } from '../eventstore/types.ts';
import type { CommandContext } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import { loadProject } from './loadProject.ts';
import type { ProjectState } from './projectState.ts';
import { projectDecider } from './projectDecider.ts';
import { projectStream } from './projectStream.ts';

/**
 * The id of the active project with this name, created (a `ProjectCreated` event) when there is
 * none: spans sent to an unknown project name create it, as in Phoenix. Two processes creating
 * the same name at once end with one project, which both use.
 */
export const ensureProject = async (
  store: EventStore,
  name: string,
  context: CommandContext,
  /** The project's state when the caller has just loaded it (saves reading the stream again). */
  known?: ProjectState,
): Promise<{ readonly projectId: string; readonly created: Position | null }> => {
  for (let first = true; ; first = false) {
    const state = first && known !== undefined ? known : await loadProject(store, name);
    if (state.status === 'active') return { projectId: state.projectId, created: null };
    const command = { type: 'CreateProject', projectId: randomUUID(), name, description: null, ifAbsent: true } as const;
    const result = await handleCommand(store, projectStream(name), projectDecider, command, context);
    const created = result.events.find((e) => isEventOf(e, ['ProjectCreated']));
    if (created) return { projectId: created.data.projectId, created: result.position };
    // Another writer created it between our read and our append: read it again.
  }
};
