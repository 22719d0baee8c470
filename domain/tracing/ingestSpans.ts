import { eventMetadata } from '../eventMetadata.ts';
import type { EventStore, Position } from '../eventstore/types.ts';
import { comparePosition } from '../eventstore/types.ts';
import type { CommandContext } from '../handleCommand.ts';
import { ensureProject } from '../projects/ensureProject.ts';
import type { SpansIngested } from './events.ts';
import type { SpanBatch } from './spanRecord.ts';
import { storableBatch, storableText } from './storable.ts';
import { ingestStream } from './tracingStreams.ts';

/**
 * Stores one export request's spans: per project, the project is created first when its name is
 * new, then ONE `SpansIngested` event is appended to a fresh stream (see ingestStream). Resolves
 * once every append is durable — the receivers acknowledge right after — with the position of
 * the last one (null when there was nothing to store).
 * Everything appended is storable (`storable.ts`), so the projector can apply whatever this
 * acknowledged. The project name gets control characters replaced before the project is looked
 * up or created; a name too long to store is refused by the project's decider (DomainError).
 */
export const ingestSpans = async (store: EventStore, batches: readonly SpanBatch[], context: CommandContext): Promise<Position | null> => {
  let last: Position | null = null;
  // One time for the whole request, as for the events of one command.
  const metadata = eventMetadata(context, 'IngestSpans', context.now?.());
  for (const batch of batches) {
    if (batch.spans.length === 0) continue;
    const { projectId } = await ensureProject(store, storableText(batch.projectName), context);
    const event: SpansIngested = { type: 'SpansIngested', data: { ...storableBatch(batch), projectId } };
    const { position } = await store.appendToStream(ingestStream(projectId), [{ ...event, metadata }], 'no_stream');
    if (last === null || comparePosition(position, last) > 0) last = position;
  }
  return last;
};
