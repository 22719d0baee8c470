import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  Position,
  ReadFilter,
  StoredEvent,
} from '../../domain/eventstore/types.ts';
import { createHash } from 'node:crypto';
import {
  CONTENT_REMOVED,
  comparePosition,
  positionToString,
  REMOVALS_STREAM,
  START,
  WrongExpectedRevisionError,
} from '../../domain/eventstore/types.ts';

/**
 * A test double of the event-store port: enough to drive the command functions (reservations,
 * optimistic concurrency) without a database. `beforeAppend` lets a test slip in a concurrent
 * writer between a command's read and its append. It passes the same contract suite as the
 * Postgres store (test/domain/eventstore/memoryEventStore.test.ts); reads hand out copies, so a
 * test cannot change the log by changing what it read.
 */
export const memoryEventStore = () => {
  const all: StoredEvent[] = [];
  const recordedAt = new Map<string, Date>();
  let seq = 0n;
  const hooks: { beforeAppend?: (stream: string) => Promise<void> | void } = {};
  const streamEvents = (stream: string) => all.filter((e) => e.stream === stream);
  const copies = (events: readonly StoredEvent[]) => events.map((e) => structuredClone(e));
  const store: EventStore = {
    async appendToStream(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
      const hook = hooks.beforeAppend;
      hooks.beforeAppend = undefined;
      await hook?.(stream);
      const existing = streamEvents(stream);
      const actual = existing.length === 0 ? null : existing.length - 1;
      if (expected === 'no_stream' ? actual !== null : expected !== 'any' && expected !== actual) {
        throw new WrongExpectedRevisionError(stream, expected, actual);
      }
      let revision = actual ?? -1;
      let position: Position = START;
      for (const e of events) {
        seq += 1n;
        revision += 1;
        position = { tx: seq, seq };
        const id = e.id ?? `e${seq}`;
        recordedAt.set(id, new Date());
        all.push({
          id,
          stream,
          revision,
          position,
          type: e.type,
          schemaVersion: 1,
          data: structuredClone(e.data),
          metadata: e.metadata,
        });
      }
      return { revision, position };
    },
    async readStream(stream: string) {
      return copies(streamEvents(stream));
    },
    async readAll(after: Position, limit: number, filter?: ReadFilter) {
      const wanted = (e: StoredEvent) => !filter?.types || filter.types.includes(e.type);
      const page = all.filter((e) => comparePosition(e.position, after) > 0 && wanted(e)).slice(0, limit);
      const maxBytes = filter?.maxBytes ?? Number.POSITIVE_INFINITY;
      // A prefix of the page, as long as its data fits in maxBytes (at least one event).
      const kept: StoredEvent[] = [];
      let total = 0;
      for (const e of page) {
        total += JSON.stringify(e.data).length;
        if (kept.length > 0 && total > maxBytes) break;
        kept.push(e);
      }
      return copies(kept);
    },
    async backlog(after: Position, { cap, through }: { cap: number; through?: Position }) {
      const pending = all.filter((e) => comparePosition(e.position, after) > 0 && (!through || comparePosition(e.position, through) <= 0));
      return { events: Math.min(cap, pending.length), oldestRecordedAt: pending.length ? recordedAt.get(pending[0]!.id)! : null };
    },
    async headPosition() {
      return all.at(-1)?.position ?? START;
    },
    async removeContent(removal) {
      const ids = new Set(removal.eventIds);
      const changes = all.flatMap((e, index) => {
        if (!ids.has(e.id)) return [];
        const kept = removal.rewrite(structuredClone(e));
        return kept === undefined ? [] : [{ index, event: e, data: kept === null ? {} : structuredClone(kept) }];
      });
      if (changes.length === 0) return null;
      const erased = changes.map(({ event }) => ({ id: event.id, stream: event.stream, position: event.position }));
      const { position } = await store.appendToStream(
        REMOVALS_STREAM,
        [
          {
            ...removal.record,
            type: CONTENT_REMOVED,
            data: {
              ...(removal.record.data as object),
              erased: erased.map((e) => ({ id: e.id, stream: e.stream, position: positionToString(e.position) })),
            },
          },
        ],
        'any',
      );
      for (const { index, event, data } of changes) {
        const dataSha256 = event.erased?.dataSha256 ?? createHash('sha256').update(JSON.stringify(event.data)).digest('hex');
        all[index] = { ...event, data, erased: { by: position, dataSha256 } };
      }
      return { position, erased };
    },
    async reclaimSpace() {},
  };
  return { store, all, hooks };
};
