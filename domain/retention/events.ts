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

/** A named trace retention policy (ids are handed out in order and never reused). */
export type TraceRetentionPolicyData = {
  readonly policyId: number;
  readonly name: string;
  readonly maxDays: number | null;
  readonly maxTraces: number | null;
};

export type TraceRetentionPolicyCreated = DomainEvent<'TraceRetentionPolicyCreated', TraceRetentionPolicyData>;
/** The whole policy as it now is (name and rule). */
export type TraceRetentionPolicyChanged = DomainEvent<'TraceRetentionPolicyChanged', TraceRetentionPolicyData>;
/** Its projects fall back to the default policy. */
export type TraceRetentionPolicyDeleted = DomainEvent<'TraceRetentionPolicyDeleted', { readonly policyId: number }>;
/** A project's policy: a named one, or `null` for the default (`SERVICE_DEFAULT_RETENTION_POLICY_DAYS`). */
export type ProjectTraceRetentionPolicySet = DomainEvent<
  'ProjectTraceRetentionPolicySet',
  { readonly projectId: string; readonly policyId: number | null }
>;

export type TraceRetentionPolicyEvent =
  | TraceRetentionPolicyCreated
  | TraceRetentionPolicyChanged
  | TraceRetentionPolicyDeleted
  | ProjectTraceRetentionPolicySet;

/**
 * One run of one policy (`policyId` is the policy's id, or `default`), appended by the retention
 * reactor before the deletions it issues: when it ran, the cut-off by age, how many traces of
 * how many projects it expired. What the removal then took is in the ContentRemoved records
 * naming the policy.
 */
export type TraceRetentionApplied = DomainEvent<
  'TraceRetentionApplied',
  {
    readonly policyId: string;
    readonly ranAt: string;
    readonly startedBefore: string | null;
    readonly maxTraces: number | null;
    readonly projects: number;
    readonly expiredTraces: number;
  }
>;

export type RetentionEvent = ContentRemoved | TraceRetentionPolicyEvent | TraceRetentionApplied;
