import type { StoredEvent } from '../eventstore/types.ts';
import type { ContentRemovedData } from './events.ts';
import { RETENTION_ACTOR_PREFIX } from './retentionDecision.ts';

/**
 * What erasure decides, as pure functions (the erasure reactor in
 * projections/retention/erasureReactor.ts gathers the facts from the read models and issues the
 * removals): given deletions and what the tracing read model noted they took, which content goes
 * from the log, in how many removals.
 */

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

/** One span a deletion took from the read models: from which SpansIngested event, in which trace and session. */
export type ErasedSpan = {
  readonly deletion_event: string;
  readonly source_event: string;
  readonly span_id: string;
  readonly trace_id: string;
  readonly session_id: string | null;
};

/** What the read models hold after the deletions: the traces and sessions that still have spans. */
export type ErasureFacts = {
  readonly work: readonly ErasedSpan[];
  readonly tracesLeft: ReadonlySet<string>;
  readonly sessionsLeft: ReadonlySet<string>;
};

const text = (data: unknown, field: string): string | null => {
  const v = (data as Record<string, unknown> | null)?.[field];
  return typeof v === 'string' ? v : null;
};
export const distinct = (values: readonly string[]): string[] => [...new Set(values)].sort();

/** The traces and sessions whose annotations the removals may touch: look these up for `tracesLeft` and `sessionsLeft`. */
export const erasureTargets = (work: readonly ErasedSpan[]): { traceIds: string[]; sessionIds: string[] } => ({
  traceIds: distinct(work.map((w) => w.trace_id)),
  sessionIds: distinct(work.flatMap((w) => (w.session_id === null ? [] : [w.session_id]))),
});

/** One removal per deletion that took something (a deleted session always: its notes go). */
const removalOf = (deletion: StoredEvent, facts: ErasureFacts): RemoveContent[] => {
  const mine = facts.work.filter((w) => w.deletion_event === deletion.id);
  const deletedSession = deletion.type === 'SessionDeleted' ? text(deletion.data, 'sessionId') : null;
  if (mine.length === 0 && deletedSession === null) return [];
  const retention = deletion.type === 'TracesExpired' || deletion.metadata.actor.startsWith(RETENTION_ACTOR_PREFIX);
  const bySource = new Map<string, string[]>();
  for (const w of mine) bySource.set(w.source_event, [...(bySource.get(w.source_event) ?? []), w.span_id]);
  const sessions = distinct([
    ...mine.flatMap((w) => (w.session_id === null || facts.sessionsLeft.has(w.session_id) ? [] : [w.session_id])),
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
        traceIds: distinct(mine.flatMap((w) => (facts.tracesLeft.has(w.trace_id) ? [] : [w.trace_id]))),
        sessionIds: sessions,
      },
    },
  ];
};

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

/** The removals `deletions` call for, given what the read models noted and still hold. */
export const erasureCommands = (deletions: readonly StoredEvent[], facts: ErasureFacts): RemoveContent[] =>
  mergeRetention(deletions.flatMap((deletion) => removalOf(deletion, facts)));

/**
 * A policy's deletions in a log written before TracesExpired are TraceDeleted events, which carry
 * no cut-off; the run that issued them recorded it (TraceRetentionApplied): this removal needs
 * that policy's last recorded cut-off (null: none needed).
 */
export const needsRecordedCutoff = (c: RemoveContent): string | null =>
  c.kind !== 'retention' || c.cutoff !== null || c.policyId === null || c.deletions[0]?.type === 'TracesExpired' ? null : c.policyId;
