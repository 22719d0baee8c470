import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { distinctAnnotations } from '../../domain/annotations/distinctAnnotations.ts';
import { withoutAnnotations, isOnErased, type AnnotationTargets } from '../../domain/annotations/erasedAnnotations.ts';
import { eventMetadata } from '../../domain/eventMetadata.ts';
import { isFailureOnErased, withoutFailureError } from '../../domain/evaluators/erasedFailures.ts';
import type { EvaluationFailed } from '../../domain/evaluators/events.ts';
import type { EventStore, Position, StoredEvent } from '../../domain/eventstore/types.ts';
import { CONTENT_REMOVED, START } from '../../domain/eventstore/types.ts';
import type { ContentRemovedData } from '../../domain/retention/events.ts';
import {
  DELETION_EVENT_TYPES,
  erasureCommands,
  erasureTargets,
  needsRecordedCutoff,
  type RemoveContent,
} from '../../domain/retention/erasureDecision.ts';
import { withoutSpans } from '../../domain/tracing/erasedSpans.ts';
import type { Reactor } from '../reactors/reactor.ts';
import { erasureWork, sessionsStillThere, tracesStillThere } from './erasureQueries.ts';
import { lastTraceRetentionRun } from './traceRetentionPolicyQueries.ts';
import { vacuumAfterErasure } from './vacuumAfterErasure.ts';

export { DELETION_EVENT_TYPES, type RemoveContent } from '../../domain/retention/erasureDecision.ts';

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
    const policyId = needsRecordedCutoff(c);
    if (policyId === null) {
      out.push(c);
      continue;
    }
    if (!runs.has(policyId)) {
      const run = await lastTraceRetentionRun(db, policyId);
      runs.set(policyId, run?.started_before == null ? null : new Date(run.started_before).toISOString());
    }
    out.push({ ...c, cutoff: runs.get(policyId) ?? null });
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
    // The facts from the read models; the decision is domain/retention/erasureDecision.ts'.
    const work = await erasureWork(
      db,
      events.map((e) => e.id),
    );
    const { traceIds, sessionIds } = erasureTargets(work);
    const facts = { work, tracesLeft: await tracesStillThere(db, traceIds), sessionsLeft: await sessionsStillThere(db, sessionIds) };
    return withCutoffs(db, erasureCommands(events, facts));
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
        if (event.type === 'EvaluationFailed') return withoutFailureError(event.data as EvaluationFailed['data']);
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
 * The AnnotationsRecorded events holding an annotation on one of the targets, and the
 * EvaluationFailed events of evaluations that judged one (their error text may quote it). Both
 * are few next to span events; the log is read for those types only.
 */
const annotationEventsOn = async (store: EventStore, targets: AnnotationTargets): Promise<{ eventIds: string[]; count: number }> => {
  const eventIds: string[] = [];
  let count = 0;
  if (targets.spanIds.size + targets.traceIds.size + targets.sessionIds.size === 0) return { eventIds, count };
  let after: Position = START;
  for (;;) {
    const page: StoredEvent[] = await store.readAll(after, 500, { types: ['AnnotationsRecorded', 'EvaluationFailed'] });
    if (page.length === 0) return { eventIds, count };
    for (const e of page) {
      if (e.type === 'EvaluationFailed') {
        if (isFailureOnErased(e.data, targets)) eventIds.push(e.id);
        continue;
      }
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
