import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { distinctAnnotations } from '../../domain/annotations/distinctAnnotations.ts';
import { withoutAnnotations, isOnErased, type AnnotationTargets } from '../../domain/annotations/erasedAnnotations.ts';
import { eventMetadata } from '../../domain/eventMetadata.ts';
import type { EventStore, Position, StoredEvent } from '../../domain/eventstore/types.ts';
import { CONTENT_REMOVED, START } from '../../domain/eventstore/types.ts';
import type { ContentRemovedData } from '../../domain/retention/events.ts';
import { withoutSpans } from '../../domain/tracing/erasedSpans.ts';
import type { Reactor } from '../reactors/reactor.ts';
import { erasureWork, sessionsStillThere, tracesStillThere } from '../tracing/erasureQueries.ts';
import { RETENTION_ACTOR_PREFIX } from './retentionReactor.ts';
import { lastTraceRetentionRun } from './traceRetentionPolicyQueries.ts';
import { vacuumAfterErasure } from './vacuumAfterErasure.ts';

/** The events after which content is gone from the read models and must go from the log. */
export const DELETION_EVENT_TYPES = ['SpanDeleted', 'TraceDeleted', 'SessionDeleted', 'ProjectDeleted', 'TracesExpired'] as const;

/** Remove from the log what one deletion (or one run of a policy's deletions) took from the read models. */
export type RemoveContent = {
  /** One user deletion; or the consecutive deletions of one policy run in one project (its TracesExpired; one record for them all). */
  readonly deletions: readonly { readonly id: string; readonly type: string }[];
  /** Who deleted (or which policy expired it), on which request: the record's metadata. */
  readonly actor: string;
  readonly requestId: string | null;
  readonly kind: ContentRemovedData['kind'];
  readonly projectId: string | null;
  readonly policyId: string | null;
  readonly cutoff: string | null;
  /** The SpansIngested events and, in each, the ids of the spans to remove. */
  readonly spans: readonly { readonly eventId: string; readonly spanIds: readonly string[] }[];
  /** Annotations and notes on these go too: every removed span; traces and sessions the read models no longer hold. */
  readonly targets: { readonly spanIds: readonly string[]; readonly traceIds: readonly string[]; readonly sessionIds: readonly string[] };
};

const text = (data: unknown, field: string): string | null => {
  const v = (data as Record<string, unknown> | null)?.[field];
  return typeof v === 'string' ? v : null;
};
const distinct = (values: readonly string[]) => [...new Set(values)].sort();

/**
 * A policy run expires thousands of traces: removing them one record and one vacuum at a time held
 * ingest up for tens of seconds each run (BENCHMARKS.md §20). The consecutive retention deletions
 * of one policy in one project with one cut-off (the TracesExpired of a run bigger than one event
 * holds; a log written before TracesExpired has one TraceDeleted per trace) become one removal
 * (the record lists every deletion it completes). A user's deletions stay one removal each.
 */
const mergeRetention = (commands: readonly RemoveContent[]): RemoveContent[] => {
  const out: RemoveContent[] = [];
  for (const c of commands) {
    const last = out.at(-1);
    if (
      !last ||
      c.kind !== 'retention' ||
      last.kind !== 'retention' ||
      last.actor !== c.actor ||
      last.projectId !== c.projectId ||
      last.cutoff !== c.cutoff
    ) {
      out.push(c);
      continue;
    }
    const spans = new Map(last.spans.map((s) => [s.eventId, [...s.spanIds]]));
    for (const s of c.spans) spans.set(s.eventId, [...(spans.get(s.eventId) ?? []), ...s.spanIds]);
    out[out.length - 1] = {
      ...last,
      deletions: [...last.deletions, ...c.deletions],
      spans: [...spans].map(([eventId, spanIds]) => ({ eventId, spanIds })),
      targets: {
        spanIds: distinct([...last.targets.spanIds, ...c.targets.spanIds]),
        traceIds: distinct([...last.targets.traceIds, ...c.targets.traceIds]),
        sessionIds: distinct([...last.targets.sessionIds, ...c.targets.sessionIds]),
      },
    };
  }
  return out;
};

/**
 * A TracesExpired carries its run's cut-off (`startedBefore`). A policy's deletions in a log
 * written before it are TraceDeleted events, which carry none; the run that issued them recorded
 * it (TraceRetentionApplied, appended before them, so the read models hold it now), and the
 * removal record repeats it. A count-only run has none.
 */
const withCutoffs = async (db: CommonQueryMethods, commands: readonly RemoveContent[]): Promise<RemoveContent[]> => {
  const runs = new Map<string, string | null>();
  const out: RemoveContent[] = [];
  for (const c of commands) {
    if (c.kind !== 'retention' || c.cutoff !== null || c.policyId === null || c.deletions[0]?.type === 'TracesExpired') {
      out.push(c);
      continue;
    }
    if (!runs.has(c.policyId)) {
      const run = await lastTraceRetentionRun(db, c.policyId);
      runs.set(c.policyId, run?.started_before == null ? null : new Date(run.started_before).toISOString());
    }
    out.push({ ...c, cutoff: runs.get(c.policyId) ?? null });
  }
  return out;
};

/**
 * Deletion reaches the log. The tracing read model notes, as it applies a deletion, which spans
 * of which SpansIngested events it took (tracing_erasures); once every read model has applied
 * the deletion (`afterReadModels`), this reactor removes those spans from those events, and the
 * annotations and notes on them (and on traces and sessions the deletion left without spans),
 * through the store's one removal path: one ContentRemoved record per deletion. Then it vacuums
 * what was touched. Issuing twice is harmless: the second removal finds nothing left to rewrite.
 */
export const erasureReactor = (deps: {
  readonly store: EventStore;
  readonly pool: DatabasePool;
  /** Rewrite the read models' touched tables after an erasure (VACUUM FULL; see vacuumAfterErasure). */
  readonly fullVacuum: boolean;
  /** After the vacuum (embedded PGlite: a CHECKPOINT, so the WAL that held the removed content is recycled; ops/database/walCheckpoints.ts). */
  readonly afterVacuum?: () => Promise<void>;
}): Reactor<RemoveContent> => ({
  name: 'erasure',
  eventTypes: DELETION_EVENT_TYPES,
  afterReadModels: true,
  react: async (events, { db }) => {
    const work = await erasureWork(
      db,
      events.map((e) => e.id),
    );
    const traceIds = distinct(work.map((w) => w.trace_id));
    const sessionIds = distinct(work.flatMap((w) => (w.session_id === null ? [] : [w.session_id])));
    const tracesLeft = await tracesStillThere(db, traceIds);
    const sessionsLeft = await sessionsStillThere(db, sessionIds);
    const commands = events.flatMap((deletion): RemoveContent[] => {
      const mine = work.filter((w) => w.deletion_event === deletion.id);
      const deletedSession = deletion.type === 'SessionDeleted' ? text(deletion.data, 'sessionId') : null;
      if (mine.length === 0 && deletedSession === null) return [];
      const retention = deletion.type === 'TracesExpired' || deletion.metadata.actor.startsWith(RETENTION_ACTOR_PREFIX);
      const bySource = new Map<string, string[]>();
      for (const w of mine) bySource.set(w.source_event, [...(bySource.get(w.source_event) ?? []), w.span_id]);
      const sessions = distinct([
        ...mine.flatMap((w) => (w.session_id === null || sessionsLeft.has(w.session_id) ? [] : [w.session_id])),
        ...(deletedSession === null ? [] : [deletedSession]),
      ]);
      return [
        {
          deletions: [{ id: deletion.id, type: deletion.type }],
          actor: deletion.metadata.actor,
          requestId: deletion.metadata.requestId,
          kind: retention ? 'retention' : 'erasure',
          projectId: text(deletion.data, 'projectId'),
          policyId: text(deletion.data, 'policyId') ?? (retention ? deletion.metadata.actor.slice(RETENTION_ACTOR_PREFIX.length) : null),
          cutoff: text(deletion.data, 'startedBefore'),
          spans: [...bySource].map(([eventId, spanIds]) => ({ eventId, spanIds })),
          targets: {
            spanIds: distinct(mine.map((w) => w.span_id)),
            traceIds: distinct(mine.flatMap((w) => (tracesLeft.has(w.trace_id) ? [] : [w.trace_id]))),
            sessionIds: sessions,
          },
        },
      ];
    });
    return withCutoffs(db, mergeRetention(commands));
  },
  async issue(command) {
    const targets: AnnotationTargets = {
      spanIds: new Set(command.targets.spanIds),
      traceIds: new Set(command.targets.traceIds),
      sessionIds: new Set(command.targets.sessionIds),
    };
    const annotated = await annotationEventsOn(deps.store, targets);
    const spansOf = new Map(command.spans.map((s) => [s.eventId, new Set(s.spanIds)]));
    const data: ContentRemovedData = {
      kind: command.kind,
      deletions: command.deletions,
      projectId: command.projectId,
      traceIds: command.targets.traceIds,
      spanIds: command.deletions.some((d) => d.type === 'SpanDeleted') ? command.targets.spanIds : [],
      sessionIds: command.targets.sessionIds,
      removed: { spans: command.targets.spanIds.length, annotations: annotated.count },
      policyId: command.policyId,
      cutoff: command.cutoff,
    };
    const result = await deps.store.removeContent({
      record: {
        type: CONTENT_REMOVED,
        data,
        metadata: eventMetadata({ actor: command.actor, requestId: command.requestId }, `RemoveContent:${command.deletions[0]!.type}`),
      },
      eventIds: [...spansOf.keys(), ...annotated.eventIds],
      rewrite: (event) => {
        const spanIds = spansOf.get(event.id);
        if (event.type === 'SpansIngested' && spanIds) return withoutSpans(event.data, (s) => spanIds.has(s.spanId));
        if (event.type === 'AnnotationsRecorded') return withoutAnnotations(event.data, targets);
        return undefined;
      },
    });
    if (result === null) return;
    await deps.store.reclaimSpace();
    await vacuumAfterErasure(deps.pool, deps.fullVacuum && command.kind === 'erasure');
    await deps.afterVacuum?.();
  },
});

/**
 * The AnnotationsRecorded events holding an annotation on one of the targets. Annotation events
 * are few next to span events; the log is read for that type only.
 */
const annotationEventsOn = async (store: EventStore, targets: AnnotationTargets): Promise<{ eventIds: string[]; count: number }> => {
  const eventIds: string[] = [];
  let count = 0;
  if (targets.spanIds.size + targets.traceIds.size + targets.sessionIds.size === 0) return { eventIds, count };
  let after: Position = START;
  for (;;) {
    const page: StoredEvent[] = await store.readAll(after, 500, { types: ['AnnotationsRecorded'] });
    if (page.length === 0) return { eventIds, count };
    for (const e of page) {
      const annotations = (e.data as { annotations?: unknown } | null)?.annotations;
      if (!Array.isArray(annotations)) continue;
      // Counted as the rewrite removes them: one per upsert key (a key repeated in the request is one annotation).
      const on = distinctAnnotations(annotations).filter(({ annotation }) => isOnErased(annotation, targets)).length;
      if (on > 0) {
        eventIds.push(e.id);
        count += on;
      }
    }
    after = page[page.length - 1]!.position;
  }
};
