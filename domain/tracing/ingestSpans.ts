import type { EventStore, Position } from '../eventstore/types.ts';
import { comparePosition } from '../eventstore/types.ts';
import type { CommandContext } from '../handleCommand.ts';
import { ensureProject } from '../projects/ensureProject.ts';
import type { SpansIngested } from './events.ts';
import { jsonSafeBatch } from './jsonSafe.ts';
import type { SpanBatch } from './spanRecord.ts';
import { ingestStream } from './tracingStreams.ts';

/**
 * Stores one export request's spans: per project, the project is created first when its name is
 * new, then ONE `SpansIngested` event is appended to a fresh stream (see ingestStream). Resolves
 * once every append is durable — the receivers acknowledge right after — with the position of
 * the last one (null when there was nothing to store).
 */
export const ingestSpans = async (store: EventStore, batches: readonly SpanBatch[], context: CommandContext): Promise<Position | null> => {
  let last: Position | null = null;
  const time = (context.now?.() ?? new Date()).toISOString();
  for (const batch of batches) {
    if (batch.spans.length === 0) continue;
    const { projectId } = await ensureProject(store, batch.projectName, context);
    const event: SpansIngested = { type: 'SpansIngested', data: { ...jsonSafeBatch(batch), projectId } };
    const { position } = await store.appendToStream(
      ingestStream(projectId),
      [{ ...event, metadata: { actor: context.actor, requestId: context.requestId, time, causation: 'IngestSpans' } }],
      'no_stream',
    );
    if (last === null || comparePosition(position, last) > 0) last = position;
  }
  return last;
};
