import type { StoredEvent } from '../../domain/eventstore/types.ts';
import type { SpansIngestedData, TelemetryDeletionEvent } from '../../domain/tracing/events.ts';
import type { Projection } from '../projection.ts';
import { applyProjectEvent } from './applyProjectEvent.ts';
import { applySpansIngested } from './applySpansIngested.ts';
import { applyTelemetryDeletions } from './applyTelemetryDeletions.ts';
import { loadIdAllocator } from './idAllocator.ts';
import { tracingMigrations } from './tracingMigrations.ts';

/** Spans per statement: big enough that per-statement costs vanish, small enough to bound one parameter's size. */
const SPANS_PER_CHUNK = 4000;

const DELETIONS = new Set<string>(['SpanDeleted', 'TraceDeleted', 'SessionDeleted']);
const PROJECT_EVENTS = new Set<string>(['ProjectCreated', 'ProjectUpdated', 'ProjectDeleted']);

const spanCount = (e: StoredEvent) => (e.data as SpansIngestedData).spans.length;

/**
 * Projects, traces, spans and sessions: one projector, because each depends on the others
 * (spans find their trace's project, a project's deletion cascades through all of them) and a
 * rebuild must replay them together. Runs of events of one kind are applied together.
 */
export const tracingProjection: Projection = {
  name: 'tracing',
  tables: ['tracing_ids', 'projects', 'sessions', 'traces', 'spans'],
  migrations: tracingMigrations,
  apply: async (tx, events) => {
    const ids = await loadIdAllocator(tx);
    let i = 0;
    while (i < events.length) {
      const event = events[i]!;
      if (event.type === 'SpansIngested') {
        const run: StoredEvent[] = [];
        let spans = 0;
        while (i < events.length && events[i]!.type === 'SpansIngested' && (run.length === 0 || spans + spanCount(events[i]!) <= SPANS_PER_CHUNK)) {
          spans += spanCount(events[i]!);
          run.push(events[i++]!);
        }
        await applySpansIngested(tx, run, ids);
      } else if (DELETIONS.has(event.type)) {
        const run: StoredEvent[] = [];
        while (i < events.length && events[i]!.type === event.type) run.push(events[i++]!);
        await applyTelemetryDeletions(tx, event.type as TelemetryDeletionEvent['type'], run);
      } else {
        if (PROJECT_EVENTS.has(event.type)) await applyProjectEvent(tx, event, ids);
        i++;
      }
    }
    await ids.flush();
  },
};
