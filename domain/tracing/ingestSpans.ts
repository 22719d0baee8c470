import { setImmediate as nextTurn } from 'node:timers/promises';
import { eventMetadata } from '../eventMetadata.ts';
import type { EventStore, Position } from '../eventstore/types.ts';
import { comparePosition } from '../eventstore/types.ts';
import type { CommandContext } from '../handleCommand.ts';
import { DomainError } from '../errors.ts';
import { ensureProject } from '../projects/ensureProject.ts';
import { loadProject } from '../projects/loadProject.ts';
import type { ProjectState } from '../projects/projectState.ts';
import type { SpansIngested } from './events.ts';
import type { SpanBatch } from './events.ts';
import { MAX_SPANS_PER_EVENT, splitBatch } from './splitBatch.ts';
import { storableText } from '../base/storableText.ts';
import { storableBatch } from './storable.ts';
import { ingestStream } from './tracingStream.ts';

export type IngestSpansOptions = {
  /** Spans per event at most (default MAX_SPANS_PER_EVENT; tests pass small numbers). */
  readonly maxSpansPerEvent?: number;
  /**
   * Whether the sender may store spans into this project (absent: it would be created). Asked for
   * every project of the request before anything is appended: one refusal stores nothing.
   */
  readonly mayStoreInto?: (project: ProjectState) => boolean;
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
  const known = new Map<string, ProjectState>();
  if (options.mayStoreInto !== undefined) {
    for (const batch of batches) {
      const name = storableText(batch.projectName);
      if (batch.spans.length === 0 || known.has(name)) continue;
      const state = await loadProject(store, name);
      // Never names the project: one the sender may not see must not be confirmed to exist.
      if (!options.mayStoreInto(state))
        throw new DomainError('ingest_forbidden', 'You may not store spans into a project this request names.', 'forbidden');
      known.set(name, state);
    }
  }
  for (const batch of batches) {
    if (batch.spans.length === 0) continue;
    const name = storableText(batch.projectName);
    const { projectId } = await ensureProject(store, name, context, known.get(name));
    for (const part of splitBatch(batch, options.maxSpansPerEvent ?? MAX_SPANS_PER_EVENT)) {
      if (appended++ > 0) await nextTurn();
      const event: SpansIngested = { type: 'SpansIngested', data: { ...storableBatch(part), projectId } };
      const { position } = await store.appendToStream(ingestStream(projectId), [{ ...event, metadata }], 'no_stream');
      if (last === null || comparePosition(position, last) > 0) last = position;
    }
  }
  return last;
};
