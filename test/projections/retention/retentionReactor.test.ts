import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '../../../domain/decider.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import { TRACE_RETENTION_POLICIES_STREAM } from '../../../domain/retention/traceRetentionPolicyStream.ts';
import { retentionReactor, type RetentionCommand } from '../../../projections/retention/retentionReactor.ts';
import { traceRetentionPoliciesProjection } from '../../../projections/retention/traceRetentionPoliciesProjection.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { memoryEventStore } from '../../support/memoryEventStore.ts';
import { inStream, reactorSpec } from '../../support/reactorSpec.ts';
import { batch, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';

const P = '11111111-1111-4111-8111-111111111111';
const Q = '22222222-2222-4222-8222-222222222222';
const created = (projectId: string, name: string): DomainEvent => ({
  type: 'ProjectCreated',
  data: { projectId, name, description: null, gradientStartColor: '#000000', gradientEndColor: '#ffffff' },
});
const now = new Date('2026-03-20T12:00:00Z');
const at = (traceId: string, iso: string) => spanRecord({ traceId, startTimeUnixNano: nanos(iso), endTimeUnixNano: nanos(iso) });
const spans = (projectId: string, name: string, traces: [string, string][]): DomainEvent => ({
  type: 'SpansIngested',
  data: {
    ...batch(
      name,
      traces.map(([id, iso]) => at(id, iso)),
    ),
    projectId,
  },
});
const readModels = { readModels: [tracingProjection, traceRetentionPoliciesProjection] };
const reactor = (days: number) => retentionReactor({ store: memoryEventStore().store, days, everyMs: 3_600_000 });
const run = (policyId: string, fields: Partial<Extract<RetentionCommand, { type: 'RecordRetentionRun' }>['run']>): RetentionCommand => ({
  type: 'RecordRetentionRun',
  run: { policyId, ranAt: now.toISOString(), startedBefore: null, maxTraces: null, projects: 1, expiredTraces: 0, ...fields },
});
const expire = (
  projectId: string,
  projectName: string,
  traceIds: string[],
  policy: string,
  rule: { startedBefore?: string; maxTraces?: number },
): RetentionCommand => ({
  type: 'ExpireTraces',
  projectId,
  projectName,
  traceIds,
  policy,
  startedBefore: rule.startedBefore ?? null,
  maxTraces: rule.maxTraces ?? null,
});
const policy = (policyId: number, maxDays: number | null, maxTraces: number | null): DomainEvent => ({
  type: 'TraceRetentionPolicyCreated',
  data: { policyId, name: `p${policyId}`, maxDays, maxTraces },
});
const assign = (projectId: string, policyId: number | null): DomainEvent => ({
  type: 'ProjectTraceRetentionPolicySet',
  data: { projectId, policyId },
});

const old = newTraceId();
const recent = newTraceId();
const shop = [
  inStream(projectStream('shop'), created(P, 'shop')),
  inStream(
    'spans-a',
    spans(P, 'shop', [
      [old, '2026-03-10T12:00:00Z'],
      [recent, '2026-03-20T11:00:00Z'],
    ]),
  ),
];

test('given traces started ten days ago and now, when a 7-day default policy runs, then only the old trace expires (after the run is recorded)', async () => {
  await reactorSpec(reactor(7), readModels)
    .given(...shop)
    .onSchedule(now)
    .then([
      run('default', { startedBefore: '2026-03-13T12:00:00.000Z', expiredTraces: 1 }),
      expire(P, 'shop', [old], 'default', { startedBefore: '2026-03-13T12:00:00.000Z' }),
    ]);
});

test('given 1,200 expired traces in one project, then a run issues one expiry for all of them (one TracesExpired, not one event per trace)', async () => {
  const many = Array.from({ length: 1200 }, () => newTraceId());
  await reactorSpec(reactor(7), readModels)
    .given(
      inStream(projectStream('shop'), created(P, 'shop')),
      inStream(
        'spans-a',
        spans(
          P,
          'shop',
          many.map((id) => [id, '2026-03-01T00:00:00Z'] as [string, string]),
        ),
      ),
    )
    .onSchedule(now)
    .thenMatches((commands) => {
      assert.is(commands.length, 2, 'the run record and one expiry');
      const [, expiry] = commands;
      assert.is(expiry!.type, 'ExpireTraces');
      assert.equal([...(expiry as Extract<RetentionCommand, { type: 'ExpireTraces' }>).traceIds].sort(), [...many].sort());
    });
});

test('given old traces, when no default policy is set (0 days) and no project has a policy, then nothing runs', async () => {
  await reactorSpec(reactor(0), readModels)
    .given(...shop)
    .onSchedule(now)
    .then([]);
});

test('a 3-trace policy keeps the project’s newest three traces and expires the older ones; the default still applies to another project', async () => {
  const t = Array.from({ length: 5 }, () => newTraceId());
  const other = newTraceId();
  await reactorSpec(reactor(30), readModels)
    .given(
      inStream(projectStream('shop'), created(P, 'shop')),
      inStream(projectStream('lab'), created(Q, 'lab')),
      inStream(
        'spans-a',
        spans(
          P,
          'shop',
          t.map((id, i) => [id, `2026-03-20T0${i}:00:00Z`] as [string, string]),
        ),
      ),
      inStream('spans-b', spans(Q, 'lab', [[other, '2026-01-01T00:00:00Z']])),
      inStream(TRACE_RETENTION_POLICIES_STREAM, policy(1, null, 3), assign(P, 1)),
    )
    .onSchedule(now)
    .then([
      run('default', { startedBefore: '2026-02-18T12:00:00.000Z', expiredTraces: 1 }),
      expire(Q, 'lab', [other], 'default', { startedBefore: '2026-02-18T12:00:00.000Z' }),
      run('1', { maxTraces: 3, expiredTraces: 2 }),
      expire(P, 'shop', [t[0]!, t[1]!], '1', { maxTraces: 3 }),
    ]);
});

test('days and count together: a trace expires by either rule', async () => {
  const t = Array.from({ length: 3 }, () => newTraceId());
  await reactorSpec(reactor(0), readModels)
    .given(
      inStream(projectStream('shop'), created(P, 'shop')),
      inStream(
        'spans-a',
        spans(P, 'shop', [
          [t[0]!, '2026-03-01T00:00:00Z'],
          [t[1]!, '2026-03-20T10:00:00Z'],
          [t[2]!, '2026-03-20T11:00:00Z'],
        ]),
      ),
      inStream(TRACE_RETENTION_POLICIES_STREAM, policy(1, 7, 10), assign(P, 1)),
    )
    .onSchedule(now)
    .thenMatches((commands) => {
      assert.equal(
        commands.flatMap((c) => (c.type === 'ExpireTraces' ? c.traceIds : [])),
        [t[0]!],
      );
    });
});

test('assigning a 7-day policy applies it at once to that project only; another project (on the default, which keeps for ever) is untouched', async () => {
  const theirs = newTraceId();
  await reactorSpec(reactor(0), readModels)
    .given(
      ...shop,
      inStream(projectStream('lab'), created(Q, 'lab')),
      inStream('spans-b', spans(Q, 'lab', [[theirs, '2026-03-01T00:00:00Z']])),
      inStream(TRACE_RETENTION_POLICIES_STREAM, policy(1, 7, null), assign(P, 1)),
    )
    .at(now)
    .then([
      run('1', { startedBefore: '2026-03-13T12:00:00.000Z', expiredTraces: 1 }),
      expire(P, 'shop', [old], '1', { startedBefore: '2026-03-13T12:00:00.000Z' }),
    ]);
});

test('tightening a policy applies it at once to its projects; creating one nobody has does nothing', async () => {
  await reactorSpec(reactor(0), readModels)
    .given(
      ...shop,
      inStream(TRACE_RETENTION_POLICIES_STREAM, policy(1, 30, null), policy(2, 1, null)),
      inStream(TRACE_RETENTION_POLICIES_STREAM, assign(P, 1), {
        type: 'TraceRetentionPolicyChanged',
        data: { policyId: 1, name: 'p1', maxDays: 5, maxTraces: null },
      }),
    )
    .at(now)
    .then([
      run('1', { startedBefore: '2026-03-15T12:00:00.000Z', expiredTraces: 1 }),
      expire(P, 'shop', [old], '1', { startedBefore: '2026-03-15T12:00:00.000Z' }),
    ]);
});

test.run();
