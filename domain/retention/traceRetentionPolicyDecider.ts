import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import { textProblem } from '../base/textRule.ts';
import type { TraceRetentionPolicyCommand } from './commands.ts';
import type { TraceRetentionPolicyData, TraceRetentionPolicyEvent } from './events.ts';
import { checkTraceRetentionRule, type TraceRetentionRule } from './traceRetentionRule.ts';

export type TraceRetentionPoliciesState = {
  /** The last id handed out: ids are never reused, so a GlobalID names one policy for ever. */
  readonly lastId: number;
  readonly policies: ReadonlyMap<number, TraceRetentionPolicyData>;
  /** Project (incarnation id) → its named policy; absent: the default. */
  readonly assignments: ReadonlyMap<string, number>;
};

const evolve = (state: TraceRetentionPoliciesState, event: TraceRetentionPolicyEvent): TraceRetentionPoliciesState => {
  switch (event.type) {
    case 'TraceRetentionPolicyCreated':
    case 'TraceRetentionPolicyChanged':
      return {
        ...state,
        lastId: Math.max(state.lastId, event.data.policyId),
        policies: new Map(state.policies).set(event.data.policyId, event.data),
      };
    case 'TraceRetentionPolicyDeleted': {
      const policies = new Map(state.policies);
      policies.delete(event.data.policyId);
      return {
        ...state,
        policies,
        assignments: new Map([...state.assignments].filter(([, policyId]) => policyId !== event.data.policyId)),
      };
    }
    case 'ProjectTraceRetentionPolicySet': {
      const assignments = new Map(state.assignments);
      if (event.data.policyId === null) assignments.delete(event.data.projectId);
      else assignments.set(event.data.projectId, event.data.policyId);
      return { ...state, assignments };
    }
    default:
      return state;
  }
};

const notFound = (policyId: number) =>
  new DomainError('trace_retention_policy_not_found', `Trace retention policy ${policyId} not found`, 'not_found');

/** A name is 1–100 characters without control characters; the message starts with the field (`name: ...`). */
const checkName = (state: TraceRetentionPoliciesState, name: string, self: number | null): string => {
  const trimmed = name.trim();
  const problem = textProblem(trimmed, { maxLength: 100 });
  if (trimmed === '') throw new DomainError('invalid_retention_policy_name', 'name: must not be empty');
  if (problem !== null) throw new DomainError('invalid_retention_policy_name', `name: ${problem}`);
  for (const [id, policy] of state.policies)
    if (id !== self && policy.name === trimmed)
      throw new DomainError('trace_retention_policy_exists', `A trace retention policy named "${trimmed}" already exists`, 'conflict');
  return trimmed;
};

const data = (policyId: number, name: string, rule: TraceRetentionRule): TraceRetentionPolicyData => ({
  policyId,
  name,
  maxDays: rule.maxDays,
  maxTraces: rule.maxTraces,
});

const decide = (c: TraceRetentionPolicyCommand, state: TraceRetentionPoliciesState): TraceRetentionPolicyEvent[] => {
  switch (c.type) {
    case 'CreateTraceRetentionPolicy': {
      const name = checkName(state, c.name, null);
      const rule = checkTraceRetentionRule(c.rule);
      return [{ type: 'TraceRetentionPolicyCreated', data: data(state.lastId + 1, name, rule) }];
    }
    case 'ChangeTraceRetentionPolicy': {
      const current = state.policies.get(c.policyId);
      if (current === undefined) throw notFound(c.policyId);
      const name = c.name === undefined ? current.name : checkName(state, c.name, c.policyId);
      const keep = <K extends keyof TraceRetentionRule>(k: K) => (c.rule?.[k] === undefined ? current[k] : c.rule[k]);
      const rule = checkTraceRetentionRule({ maxDays: keep('maxDays'), maxTraces: keep('maxTraces') });
      const next = data(c.policyId, name, rule);
      const same = next.name === current.name && next.maxDays === current.maxDays && next.maxTraces === current.maxTraces;
      return same ? [] : [{ type: 'TraceRetentionPolicyChanged', data: next }];
    }
    case 'DeleteTraceRetentionPolicy':
      if (!state.policies.has(c.policyId)) throw notFound(c.policyId);
      return [{ type: 'TraceRetentionPolicyDeleted', data: { policyId: c.policyId } }];
    case 'SetProjectTraceRetentionPolicy': {
      if (c.policyId !== null && !state.policies.has(c.policyId)) throw notFound(c.policyId);
      const current = state.assignments.get(c.projectId) ?? null;
      return current === c.policyId
        ? []
        : [{ type: 'ProjectTraceRetentionPolicySet', data: { projectId: c.projectId, policyId: c.policyId } }];
    }
  }
};

/** All named trace retention policies in one aggregate: unique names, ids handed out in order, project assignments. */
export const traceRetentionPolicyDecider: Decider<TraceRetentionPoliciesState, TraceRetentionPolicyCommand, TraceRetentionPolicyEvent> = {
  initialState: () => ({ lastId: 0, policies: new Map(), assignments: new Map() }),
  evolve,
  decide,
};
