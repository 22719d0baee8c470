import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '../../../domain/decider.ts';
import type { ContentRemovedData } from '../../../domain/retention/events.ts';
import { TRACE_RETENTION_POLICIES_STREAM, TRACE_RETENTION_RUNS_STREAM } from '../../../domain/retention/traceRetentionPolicyStream.ts';
import { traceRetentionPoliciesProjection } from '../../../projections/retention/traceRetentionPoliciesProjection.ts';
import { lastTraceRetentionRun, listTraceRetentionPolicies } from '../../../projections/retention/traceRetentionPolicyQueries.ts';
import { inStream, projectionSpec } from '../../support/projectionSpec.ts';

const P = '11111111-1111-4111-8111-111111111111';
const created: DomainEvent = { type: 'TraceRetentionPolicyCreated', data: { policyId: 1, name: 'week', maxDays: 7, maxTraces: null } };
const applied = (ranAt: string, expiredTraces: number): DomainEvent => ({
  type: 'TraceRetentionApplied',
  data: { policyId: '1', ranAt, startedBefore: '2026-03-13T12:00:00.000Z', maxTraces: null, projects: 1, expiredTraces },
});
const removed = (kind: 'retention' | 'erasure', traceIds: string[], spans: number, annotations: number): DomainEvent => {
  const data: ContentRemovedData = {
    kind,
    deletions: [],
    projectId: P,
    traceIds,
    spanIds: [],
    sessionIds: [],
    removed: { spans, annotations },
    policyId: kind === 'retention' ? '1' : null,
    cutoff: null,
  };
  return { type: 'ContentRemoved', data };
};

test('a policy’s last run: what it expired, plus what the removals naming it took since (an erasure is not counted); counted once', async () => {
  await projectionSpec(traceRetentionPoliciesProjection)
    .given(
      inStream(TRACE_RETENTION_POLICIES_STREAM, created),
      inStream(TRACE_RETENTION_RUNS_STREAM, applied('2026-03-20T11:00:00.000Z', 9)),
      inStream(TRACE_RETENTION_RUNS_STREAM, applied('2026-03-20T12:00:00.000Z', 2)),
      inStream('removals', removed('retention', ['a'], 3, 1), removed('retention', ['b'], 2, 0), removed('erasure', ['c'], 5, 5)),
    )
    .thenMatches(
      async (db) => ({ run: await lastTraceRetentionRun(db, '1'), listed: (await listTraceRetentionPolicies(db))[0]!.last_run }),
      ({ run, listed }) => {
        assert.equal(run, {
          policy_id: '1',
          ran_at: Date.parse('2026-03-20T12:00:00.000Z'),
          started_before: Date.parse('2026-03-13T12:00:00.000Z'),
          max_traces: null,
          projects: 1,
          expired_traces: 2,
          removed_traces: 2,
          removed_spans: 5,
          removed_annotations: 1,
        });
        assert.equal(listed, run);
      },
    );
});

test('a project’s assignment goes with the project and with the policy', async () => {
  await projectionSpec(traceRetentionPoliciesProjection)
    .given(
      inStream(TRACE_RETENTION_POLICIES_STREAM, created, { type: 'ProjectTraceRetentionPolicySet', data: { projectId: P, policyId: 1 } }),
      inStream(TRACE_RETENTION_POLICIES_STREAM, { type: 'TraceRetentionPolicyDeleted', data: { policyId: 1 } }),
    )
    .then(async (db) => listTraceRetentionPolicies(db), []);
});

test.run();
