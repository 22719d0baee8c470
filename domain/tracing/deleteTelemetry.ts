import { eventMetadata } from '../eventMetadata.ts';
import type { EventStore, Position } from '../eventstore/types.ts';
import type { CommandContext } from '../handleCommand.ts';
import { loadProject } from '../projects/loadProject.ts';
import { telemetryDeletionDecider, type DeleteTelemetry } from './telemetryDeletionDecider.ts';
import { telemetryDeletionStream } from './tracingStream.ts';

/**
 * Appends the deletion events of `command` for the project named `projectName`; throws
 * `project_not_found` when that project is gone or is another incarnation than `projectId`.
 * Returns the position of the last event, for read-your-writes.
 */
export const deleteTelemetry = async (
  store: EventStore,
  projectName: string,
  command: DeleteTelemetry,
  context: CommandContext,
): Promise<Position | null> => {
  const events = telemetryDeletionDecider.decide(command, await loadProject(store, projectName));
  if (events.length === 0) return null;
  const metadata = eventMetadata(context, command.type, context.now?.());
  const { position } = await store.appendToStream(
    telemetryDeletionStream(command.projectId),
    events.map((e) => ({ ...e, metadata })),
    // Deletions commute (each is idempotent in the projector), so concurrent ones need no ordering.
    'any',
  );
  return position;
};
