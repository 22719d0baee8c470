import { setImmediate as nextTurn } from 'node:timers/promises';
import { eventMetadata } from '../eventMetadata.ts';
import type { EventStore, Position } from '../eventstore/types.ts';
import { comparePosition } from '../eventstore/types.ts';
import type { CommandContext } from '../handleCommand.ts';
import { ensureProject } from '../projects/ensureProject.ts';
import type { SpansIngested } from './events.ts';
import type { SpanBatch } from './spanRecord.ts';
import { MAX_SPANS_PER_EVENT, splitBatch } from './splitBatch.ts';
import { storableBatch, storableText } from './storable.ts';
import { ingestStream } from './tracingStream.ts';

export type IngestSpansOptions = {
  /** Spans per event at most (default MAX_SPANS_PER_EVENT; tests pass small numbers). */
  readonly maxSpansPerEvent?: number;
};

/**
 * Stores one request's spans, whoever sends them (OTLP receivers, `POST /v1/projects/{id}/spans`,
 * the playground): per project, the project is created first when its name is new, then the
 * spans are appended as `SpansIngested` events of at most MAX_SPANS_PER_EVENT spans
 * (`splitBatch.ts`), each to a fresh stream (see ingestStream), with an event-loop turn between
 * two appends so that a large request never holds the process in one long step. Resolves once
 * every append is durable — the callers acknowledge right after — with the position of the last
 * one (null when there was nothing to store).
 * Everything appended is storable (`storable.ts`), so the projector can apply whatever this
 * acknowledged. The project name gets control characters replaced before the project is looked
 * up or created; a name too long to store is refused by the project's decider (DomainError).
 */
export const ingestSpans = async (
  store: EventStore,
  batches: readonly SpanBatch[],
  context: CommandContext,
  options: IngestSpansOptions = {},
): Promise<Position | null> => {
  let last: Position | null = null;
  let appended = 0;
  // One time for the whole request, as for the events of one command.
  const metadata = eventMetadata(context, 'IngestSpans', context.now?.());
  for (const batch of batches) {
    if (batch.spans.length === 0) continue;
    const { projectId } = await ensureProject(store, storableText(batch.projectName), context);
    for (const part of splitBatch(batch, options.maxSpansPerEvent ?? MAX_SPANS_PER_EVENT)) {
      if (appended++ > 0) await nextTurn();
      const event: SpansIngested = { type: 'SpansIngested', data: { ...storableBatch(part), projectId } };
      const { position } = await store.appendToStream(ingestStream(projectId), [{ ...event, metadata }], 'no_stream');
      if (last === null || comparePosition(position, last) > 0) last = position;
    }
  }
  return last;
};
