import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { isEventOf } from '../../domain/loupeEvent.ts';
import { builtInPattern, builtInPrices } from '../../domain/prices/builtInPrices.ts';
import type { PriceEvent } from '../../domain/prices/events.ts';
import type { ProjectEvent } from '../../domain/projects/events.ts';
import type { SpansIngested, TelemetryDeletionEvent } from '../../domain/tracing/events.ts';
import type { Projection } from '../projection.ts';
import { applyPriceEvent } from '../prices/applyPriceEvent.ts';
import { applyProjectEvent } from '../projects/applyProjectEvent.ts';
import { applySpansIngested, prepareSpans, type PreparedSpans, type SpanPartition } from './applySpansIngested.ts';
import { applyTelemetryDeletions, forgetErasures } from './applyTelemetryDeletions.ts';
import { loadIdAllocator } from './idAllocator.ts';
import { loadPriceBook } from '../prices/loadPriceBook.ts';
import { tracingMigrations } from './tracingMigrations.ts';
import { TRACE_ROLLUP_TABLES } from '../metrics/traceRollup.ts';
import { tracingPartitionName } from './tracingPartitions.ts';
import { checkLayout } from './tracingLayout.ts';

/** Spans per statement: big enough that per-statement costs vanish, small enough to bound one parameter's size. */
const SPANS_PER_CHUNK = 4000;

const SPANS: readonly SpansIngested['type'][] = ['SpansIngested'];
const DELETIONS: readonly TelemetryDeletionEvent['type'][] = ['SpanDeleted', 'TraceDeleted', 'SessionDeleted', 'TracesExpired'];
const PROJECT_EVENTS: readonly ProjectEvent['type'][] = [
  'ProjectCreated',
  'ProjectUpdated',
  'ProjectDeleted',
  'ProjectRestrictionSet',
  'ProjectGrantSet',
  'ProjectGrantRevoked',
];
const PRICE_EVENTS: readonly PriceEvent['type'][] = ['ModelPriceSet', 'ModelPriceDeleted'];

/** A crafted event may hold anything under `data` (null, `spans` not a list): it counts as empty. */
const spanCount = (e: SpansIngested) => (Array.isArray(e.data?.spans) ? e.data.spans.length : 0);

type SpanEvent = StoredEvent & SpansIngested;

/** Consecutive runs of the batch: span events (at most SPANS_PER_CHUNK spans together), deletions of one type, or one other event. */
const runsOf = (events: readonly StoredEvent[]): StoredEvent[][] => {
  const runs: StoredEvent[][] = [];
  let i = 0;
  while (i < events.length) {
    const event = events[i]!;
    const run = [event];
    if (isEventOf(event, SPANS)) {
      let spans = spanCount(event);
      for (let next = events[++i]; next !== undefined && isEventOf(next, SPANS); next = events[++i]) {
        if (spans + spanCount(next) > SPANS_PER_CHUNK) break;
        spans += spanCount(next);
        run.push(next);
      }
    } else if (isEventOf(event, DELETIONS)) {
      for (let next = events[++i]; next !== undefined && isEventOf(next, [event.type]); next = events[++i]) run.push(next);
    } else {
      i++;
    }
    runs.push(run);
  }
  return runs;
};

const isSpanRun = (run: readonly StoredEvent[]): run is SpanEvent[] => isEventOf(run[0]!, SPANS);

const TABLES = [
  'tracing_ids',
  'projects',
  'project_grants',
  'sessions',
  'traces',
  'spans',
  'span_search',
  'model_prices',
  'cost_jobs',
  'tracing_erasures',
  ...TRACE_ROLLUP_TABLES,
];

/** The events one partition applies alone (tracingPartitions.ts): every tracing event but spans. */
const isBarrier = (event: StoredEvent): boolean =>
  isEventOf(event, DELETIONS) || isEventOf(event, PROJECT_EVENTS) || isEventOf(event, PRICE_EVENTS) || isEventOf(event, ['ContentRemoved']);

/**
 * Projects, traces, spans and sessions (and the admins' model prices, which price the spans): one projector, because each depends on the others
 * (spans find their trace's project, a project's deletion cascades through all of them) and a
 * rebuild must replay them together. Runs of events of one kind are applied together; the next
 * run of spans is prepared (rendered into rows, no database) while Postgres writes this one's.
 *
 * Applied in `count` partitions by trace id (tracingPartitions.ts): partition `index` writes the
 * spans of its traces; partition 0 also applies the other events (projects, prices, deletions),
 * each alone, with every partition at the event before it (`partition.barrier`).
 */
export const tracingPartition = (index: number, count: number): Projection => {
  const part: SpanPartition = { index, count };
  const leader = index === 0;
  return {
    name: tracingPartitionName(index),
    /** The event types `apply` reads (a read-your-writes wait for another type passes while this read model is stopped). */
    eventTypes: [...SPANS, ...DELETIONS, ...PROJECT_EVENTS, ...PRICE_EVENTS, 'ContentRemoved'],
    tables: TABLES,
    migrations: tracingMigrations,
    ...(count > 1
      ? {
          partition: {
            group: 'tracing',
            index,
            count,
            names: Array.from({ length: count }, (_, i) => tracingPartitionName(i)),
            barrier: isBarrier,
          },
        }
      : {}),
    apply: async (tx, events) => {
      const ids = await loadIdAllocator(tx, index);
      checkLayout(ids.layout, count);
      const runs = runsOf(leader ? events : events.filter((e) => isEventOf(e, SPANS)));
      // Spans are priced with the prices the log holds before them: reloaded after a price event.
      let prices = await loadPriceBook(tx, builtInPrices());
      // What was prepared ahead, or why preparing it failed: reported when that run is applied.
      const ahead = new Map<number, PreparedSpans | { readonly failed: unknown }>();
      const prepared = (r: number, run: SpanEvent[]): PreparedSpans => {
        const p = ahead.get(r);
        if (p === undefined) return prepareSpans(run, prices, part);
        if ('failed' in p) throw p.failed;
        return p;
      };
      for (const [r, run] of runs.entries()) {
        const event = run[0]!;
        if (isSpanRun(run)) {
          const next = runs.findIndex((later, l) => l > r && isSpanRun(later));
          const prepareNext = () => {
            const later = runs[next];
            if (later === undefined || !isSpanRun(later)) return;
            try {
              ahead.set(next, prepareSpans(later, prices, part));
            } catch (failed) {
              ahead.set(next, { failed });
            }
          };
          await applySpansIngested(tx, prepared(r, run), ids, prepareNext);
        } else if (isEventOf(event, DELETIONS)) {
          await applyTelemetryDeletions(
            tx,
            event.type,
            run.filter((e) => isEventOf(e, DELETIONS)),
          );
        } else if (isEventOf(event, PROJECT_EVENTS)) {
          await applyProjectEvent(tx, event, ids);
        } else if (isEventOf(event, ['ContentRemoved'])) {
          // The log no longer holds what these deletions took: their erasure work is done.
          const done = Array.isArray(event.data?.deletions)
            ? event.data.deletions.map((d) => d?.id).filter((id) => typeof id === 'string')
            : [];
          await forgetErasures(tx, done);
        } else if (isEventOf(event, PRICE_EVENTS)) {
          await applyPriceEvent(tx, event, builtInPattern);
          prices = await loadPriceBook(tx, builtInPrices());
          ahead.clear();
        }
      }
      await ids.flush();
    },
  };
};

/** The tracing read model in one partition: the whole log in one chain (the embedded default, rebuilds, the bench's replay). */
export const tracingProjection: Projection = tracingPartition(0, 1);

/** The tracing read model's partitions (`SERVICE_TRACING_PARTITIONS`). */
export const tracingPartitions = (count: number): Projection[] => Array.from({ length: count }, (_, i) => tracingPartition(i, count));
