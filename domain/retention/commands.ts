import type { TraceRetentionRule } from './traceRetentionRule.ts';

export type CreateTraceRetentionPolicy = {
  readonly type: 'CreateTraceRetentionPolicy';
  readonly name: string;
  readonly rule: TraceRetentionRule;
};
/** Fields left out stay as they are. */
export type ChangeTraceRetentionPolicy = {
  readonly type: 'ChangeTraceRetentionPolicy';
  readonly policyId: number;
  readonly name?: string;
  /** A rule left out keeps its value; `null` clears it. */
  readonly rule?: Partial<TraceRetentionRule>;
};
export type DeleteTraceRetentionPolicy = { readonly type: 'DeleteTraceRetentionPolicy'; readonly policyId: number };
/** `policyId: null`: back to the default policy. */
export type SetProjectTraceRetentionPolicy = {
  readonly type: 'SetProjectTraceRetentionPolicy';
  readonly projectId: string;
  readonly policyId: number | null;
};

export type TraceRetentionPolicyCommand =
  | CreateTraceRetentionPolicy
  | ChangeTraceRetentionPolicy
  | DeleteTraceRetentionPolicy
  | SetProjectTraceRetentionPolicy;
