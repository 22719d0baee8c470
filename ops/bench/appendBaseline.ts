import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { START, type NewEvent } from '../../domain/eventstore/types.ts';
import type { Database } from '../database/openDatabase.ts';
import { machineBusySeconds } from './cpuUsage.ts';

/**
 * The log-append baseline: the run's own SpansIngested events appended again to the same `events`
 * table (fresh streams, as ingest appends them), nothing else: no HTTP, no decoding, no read model.
 * With the raw-COPY baseline it bounds what any projection could reach on this machine: every
 * acknowledged span is appended once and written once as a read-model row, so the machine's CPU
 * per visible span is at least the two added up (BENCHMARKS.md §13).
 */

export type AppendResult = {
  readonly spans: number;
  readonly events: number;
  readonly seconds: number;
  readonly spansPerSecond: number;
  /** Busy CPU of the whole machine while appending (all processes; run on a quiet machine). */
  readonly machineCpuSeconds: number;
};

/** The log's SpansIngested events, as the sink handed them to the store (data parsed back into objects). */
export const spanEventsOf = async (database: Database): Promise<{ events: NewEvent[]; spans: number }> => {
  const store = createPostgresEventStore(database.pool);
  const events: NewEvent[] = [];
  let spans = 0;
  for (let after = START; ; ) {
    const page = await store.readAll(after, 20);
    if (page.length === 0) break;
    for (const e of page) {
      if (e.type !== 'SpansIngested') continue;
      spans += (e.data as { spans: unknown[] }).spans.length;
      events.push({ type: e.type, data: e.data, metadata: e.metadata, schemaVersion: e.schemaVersion });
    }
    after = page.at(-1)!.position;
  }
  return { events, spans };
};

/**
 * Appends `events` again, each to a new stream (`no_stream`, as ingest does), from `streams`
 * concurrent appenders taking them in turn (PGlite: one session, so in effect one at a time).
 */
export const appendAgain = async (
  database: Database,
  events: readonly NewEvent[],
  spans: number,
  streams: number,
): Promise<AppendResult> => {
  const store = createPostgresEventStore(database.pool);
  const before = await database.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM events`);
  const machineBefore = machineBusySeconds();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: streams }, async () => {
      while (next < events.length) {
        const event = events[next++]!;
        await store.appendToStream(`bench-append-${randomUUID()}`, [event], 'no_stream');
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const machineCpuSeconds = machineBusySeconds() - machineBefore;
  const after = await database.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM events`);
  if (Number(after) - Number(before) !== events.length)
    throw new Error(`append baseline stored ${Number(after) - Number(before)} events, expected ${events.length}`);
  return { spans, events: events.length, seconds, spansPerSecond: spans / seconds, machineCpuSeconds };
};
