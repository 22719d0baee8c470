import type { EventStore, ExpectedRevision, StoredEvent } from '../domain/eventstore/types.ts';
import { START, WrongExpectedRevisionError, comparePosition } from '../domain/eventstore/types.ts';

/** Bytes of event data read per page: span batches are megabytes each. */
const PAGE_BYTES = 32 * 1024 * 1024;

export class TargetNotEmptyError extends Error {}

/**
 * Copies a whole log into an empty one, in global order: every event keeps its id, stream,
 * revision, type, schema version, data and metadata (positions are the target's own). Consecutive
 * events of one stream go in one append, as they were written (one OTLP request's span batches, a
 * command's events), each with the revision it had as expected revision, so the copy can only
 * repeat the source. Refuses a target that already holds events: copying twice must not merge logs.
 */
export const copyEventLog = async (
  source: EventStore,
  target: EventStore,
  onProgress: (copied: number) => void = () => undefined,
): Promise<{ copied: number; appends: number }> => {
  if (comparePosition(await target.headPosition(), START) !== 0) {
    throw new TargetNotEmptyError('the target log already holds events: copy into an empty one');
  }
  let after = START;
  let copied = 0;
  let appends = 0;
  const appendRun = async (run: readonly StoredEvent[]) => {
    const first = run[0]!;
    const expected: ExpectedRevision = first.revision === 0 ? 'no_stream' : first.revision - 1;
    const events = run.map((e) => ({ id: e.id, type: e.type, data: e.data, metadata: e.metadata, schemaVersion: e.schemaVersion }));
    try {
      await target.appendToStream(first.stream, events, expected);
    } catch (error) {
      // A stream whose first events are gone from the source (truncated there) starts afresh.
      if (!(error instanceof WrongExpectedRevisionError) || error.actual !== null) throw error;
      await target.appendToStream(first.stream, events, 'no_stream');
    }
    appends++;
  };
  for (;;) {
    const page = await source.readAll(after, 500, { maxBytes: PAGE_BYTES });
    if (page.length === 0) break;
    let start = 0;
    for (let i = 1; i <= page.length; i++) {
      const sameRun = i < page.length && page[i]!.stream === page[start]!.stream && page[i]!.revision === page[i - 1]!.revision + 1;
      if (sameRun) continue;
      await appendRun(page.slice(start, i));
      start = i;
    }
    copied += page.length;
    after = page[page.length - 1]!.position;
    onProgress(copied);
  }
  return { copied, appends };
};
