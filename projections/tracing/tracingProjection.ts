import { isEventOf } from '../../domain/loupeEvent.ts';
import type { ProjectEvent } from '../../domain/projects/events.ts';
import type { SpansIngested, TelemetryDeletionEvent } from '../../domain/tracing/events.ts';
import type { Projection } from '../projection.ts';
import { applyProjectEvent } from './applyProjectEvent.ts';
import { applySpansIngested } from './applySpansIngested.ts';
import { applyTelemetryDeletions } from './applyTelemetryDeletions.ts';
import { loadIdAllocator } from './idAllocator.ts';
import { tracingMigrations } from './tracingMigrations.ts';

/** Spans per statement: big enough that per-statement costs vanish, small enough to bound one parameter's size. */
const SPANS_PER_CHUNK = 4000;

const SPANS: readonly SpansIngested['type'][] = ['SpansIngested'];
const DELETIONS: readonly TelemetryDeletionEvent['type'][] = ['SpanDeleted', 'TraceDeleted', 'SessionDeleted'];
const PROJECT_EVENTS: readonly ProjectEvent['type'][] = ['ProjectCreated', 'ProjectUpdated', 'ProjectDeleted'];

/** A crafted event may hold anything under `data` (null, `spans` not a list): it counts as empty. */
const spanCount = (e: SpansIngested) => (Array.isArray(e.data?.spans) ? e.data.spans.length : 0);

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
      if (isEventOf(event, SPANS)) {
        const run = [event];
        let spans = spanCount(event);
        for (let next = events[++i]; next !== undefined && isEventOf(next, SPANS); next = events[++i]) {
          if (spans + spanCount(next) > SPANS_PER_CHUNK) break;
          spans += spanCount(next);
          run.push(next);
        }
        await applySpansIngested(tx, run, ids);
      } else if (isEventOf(event, DELETIONS)) {
        const run = [event];
        for (let next = events[++i]; next !== undefined && isEventOf(next, [event.type]); next = events[++i]) run.push(next);
        await applyTelemetryDeletions(tx, event.type, run);
      } else {
        if (isEventOf(event, PROJECT_EVENTS)) await applyProjectEvent(tx, event, ids);
        i++;
      }
    }
    await ids.flush();
  },
};
