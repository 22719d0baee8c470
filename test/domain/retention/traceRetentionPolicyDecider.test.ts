import { test } from 'uvu';
import type { TraceRetentionPolicyEvent } from '../../../domain/retention/events.ts';
import { traceRetentionPolicyDecider } from '../../../domain/retention/traceRetentionPolicyDecider.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';

const spec = deciderSpec(traceRetentionPolicyDecider);
const P = '11111111-1111-4111-8111-111111111111';
const created = (policyId: number, name: string, maxDays: number | null, maxTraces: number | null): TraceRetentionPolicyEvent => ({
  type: 'TraceRetentionPolicyCreated',
  data: { policyId, name, maxDays, maxTraces },
});
const week = created(1, 'week', 7, null);

test('given a deleted policy, when another is created, then it gets the next id (ids are never reused)', () =>
  spec
    .given([week, { type: 'TraceRetentionPolicyDeleted', data: { policyId: 1 } }])
    .when({ type: 'CreateTraceRetentionPolicy', name: ' last 1000 ', rule: { maxDays: null, maxTraces: 1000 } })
    .then([created(2, 'last 1000', null, 1000)]));

test('a policy may keep by days and by count at once', () =>
  spec
    .given([])
    .when({ type: 'CreateTraceRetentionPolicy', name: 'both', rule: { maxDays: 0.5, maxTraces: 10 } })
    .then([created(1, 'both', 0.5, 10)]));

test('neither rule, negative or zero days, a fractional or zero count: refused naming the field', () => {
  const create = (maxDays: number | null, maxTraces: number | null) =>
    spec.given([]).when({ type: 'CreateTraceRetentionPolicy', name: 'p', rule: { maxDays, maxTraces } });
  create(null, null).thenThrows('invalid_retention_rule');
  create(-1, null).thenThrows('invalid_retention_rule');
  create(0, null).thenThrows('invalid_retention_rule');
  create(Number.NaN, null).thenThrows('invalid_retention_rule');
  create(null, 1.5).thenThrows('invalid_retention_rule');
  create(null, 0).thenThrows('invalid_retention_rule');
  create(7, -3).thenThrows('invalid_retention_rule');
});

test('names are unique, not empty and without control characters; a policy keeps its own name when changed', () => {
  spec
    .given([week])
    .when({ type: 'CreateTraceRetentionPolicy', name: 'week', rule: { maxDays: 3, maxTraces: null } })
    .thenThrows('trace_retention_policy_exists');
  spec
    .given([])
    .when({ type: 'CreateTraceRetentionPolicy', name: '  ', rule: { maxDays: 3, maxTraces: null } })
    .thenThrows('invalid_retention_policy_name');
  spec
    .given([])
    .when({ type: 'CreateTraceRetentionPolicy', name: 'a\u0007b', rule: { maxDays: 3, maxTraces: null } })
    .thenThrows('invalid_retention_policy_name');
  spec
    .given([week])
    .when({ type: 'ChangeTraceRetentionPolicy', policyId: 1, name: 'week', rule: { maxDays: 3, maxTraces: null } })
    .then([{ type: 'TraceRetentionPolicyChanged', data: { policyId: 1, name: 'week', maxDays: 3, maxTraces: null } }]);
});

test('a change keeps what it leaves out; a change to the same values appends nothing; clearing the only rule is refused', () => {
  spec
    .given([week])
    .when({ type: 'ChangeTraceRetentionPolicy', policyId: 1, name: 'seven days' })
    .then([{ type: 'TraceRetentionPolicyChanged', data: { policyId: 1, name: 'seven days', maxDays: 7, maxTraces: null } }]);
  spec
    .given([week])
    .when({ type: 'ChangeTraceRetentionPolicy', policyId: 1, rule: { maxDays: 7, maxTraces: null } })
    .then([]);
  spec
    .given([week])
    .when({ type: 'ChangeTraceRetentionPolicy', policyId: 1, rule: { maxDays: null, maxTraces: null } })
    .thenThrows('invalid_retention_rule');
  spec.given([]).when({ type: 'ChangeTraceRetentionPolicy', policyId: 9, name: 'x' }).thenThrows('trace_retention_policy_not_found');
});

test('a project is assigned a policy, then back to the default; assigning again what it has appends nothing', () => {
  spec
    .given([week])
    .when({ type: 'SetProjectTraceRetentionPolicy', projectId: P, policyId: 1 })
    .then([{ type: 'ProjectTraceRetentionPolicySet', data: { projectId: P, policyId: 1 } }]);
  const assigned: TraceRetentionPolicyEvent = { type: 'ProjectTraceRetentionPolicySet', data: { projectId: P, policyId: 1 } };
  spec.given([week, assigned]).when({ type: 'SetProjectTraceRetentionPolicy', projectId: P, policyId: 1 }).then([]);
  spec
    .given([week, assigned])
    .when({ type: 'SetProjectTraceRetentionPolicy', projectId: P, policyId: null })
    .then([{ type: 'ProjectTraceRetentionPolicySet', data: { projectId: P, policyId: null } }]);
  spec.given([week]).when({ type: 'SetProjectTraceRetentionPolicy', projectId: P, policyId: null }).then([]);
  spec
    .given([week])
    .when({ type: 'SetProjectTraceRetentionPolicy', projectId: P, policyId: 2 })
    .thenThrows('trace_retention_policy_not_found');
});

test('a deleted policy lets its projects fall back to the default', () =>
  spec
    .given([
      week,
      { type: 'ProjectTraceRetentionPolicySet', data: { projectId: P, policyId: 1 } },
      { type: 'TraceRetentionPolicyDeleted', data: { policyId: 1 } },
    ])
    .when({ type: 'SetProjectTraceRetentionPolicy', projectId: P, policyId: null })
    .then([]));

test.run();
