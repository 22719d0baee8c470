import { eventMetadata } from '../eventMetadata.ts';
import type { EventStore, Position } from '../eventstore/types.ts';
import type { CommandContext } from '../handleCommand.ts';
import { loadProject } from '../projects/loadProject.ts';
import { annotationDeletionDecider } from './annotationDecider.ts';
import { annotationDeletionStream } from './annotationStream.ts';
import type { DeleteAnnotations } from './commands.ts';

/**
 * Appends the deletion for the project named `projectName`; throws `project_not_found` when it is
 * gone or another incarnation than `command.projectId`. Returns the position, for read-your-writes.
 */
export const deleteAnnotations = async (
  store: EventStore,
  projectName: string,
  command: DeleteAnnotations,
  context: CommandContext,
): Promise<Position> => {
  const events = annotationDeletionDecider.decide(command, await loadProject(store, projectName));
  const metadata = eventMetadata(context, command.type, context.now?.());
  // Deletions by filter commute with each other; they need no ordering among themselves.
  const { position } = await store.appendToStream(
    annotationDeletionStream(command.projectId),
    events.map((e) => ({ type: e.type, data: e.data, metadata })),
    'any',
  );
  return position;
};
