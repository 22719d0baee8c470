import type { DomainEvent } from '../decider.ts';

/**
 * The record of a removal from the log (`EventStore.removeContent` appends it to the `removals`
 * stream in the transaction that rewrites the events). It says what kind of removal, why (the
 * deletions it completes, the policy and cut-off), and which ids — never the removed content.
 * The store adds `erased`: the events it rewrote. Read models that queued work for a deletion
 * (tracing_erasures) drop it when they see the record.
 */
export type ContentRemovedData = {
  readonly kind: 'erasure' | 'retention';
  /** The deletion events (SpanDeleted, TraceDeleted, SessionDeleted, ProjectDeleted, TracesExpired) whose content this removed. */
  readonly deletions: readonly { readonly id: string; readonly type: string }[];
  readonly projectId: string | null;
  readonly traceIds: readonly string[];
  /** Only for span deletions; a trace's or project's spans are named by their traces. */
  readonly spanIds: readonly string[];
  readonly sessionIds: readonly string[];
  /** How many spans and annotations were removed from how many events. */
  readonly removed: { readonly spans: number; readonly annotations: number };
  /** Retention: the policy applied and its cut-off (traces started before it). */
  readonly policyId: string | null;
  readonly cutoff: string | null;
  /** Added by the store: the events rewritten. */
  readonly erased?: readonly { readonly id: string; readonly stream: string; readonly position: string }[];
};

export type ContentRemoved = DomainEvent<'ContentRemoved', ContentRemovedData>;

export type RetentionEvent = ContentRemoved;
