import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { StoredEvent } from '../../../domain/eventstore/types.ts';
import {
  policyRuns,
  type RetentionProject,
  retentionCommands,
  touchedByPolicyChanges,
} from '../../../domain/retention/retentionDecision.ts';

/** What retention decides, given projects and the traces past their policies (the reactor finds those). */
const NOW = new Date('2026-03-10T00:00:00Z');
const project = (id: number, policy: { id: number; days: number | null; traces: number | null } | null): RetentionProject => ({
  id,
  project_id: `p${id}`,
  name: `project ${id}`,
  policy_id: policy?.id ?? null,
  max_days: policy?.days ?? null,
  max_traces: policy?.traces ?? null,
});
const week = { id: 7, days: 7, traces: null };
const last100 = { id: 9, days: null, traces: 100 };

test('given projects with a named policy and projects on the default, when the schedule runs, then one run per policy with its cut-off', () => {
  const runs = policyRuns([project(1, week), project(2, null), project(3, last100), project(4, week)], 30, true, NOW);
  assert.equal(
    runs.map((r) => [r.rule.policy, r.projects.map((p) => p.id), r.startedBefore?.toISOString() ?? null]),
    [
      ['default', [2], '2026-02-08T00:00:00.000Z'],
      ['7', [1, 4], '2026-03-03T00:00:00.000Z'],
      ['9', [3], null],
    ],
  );
});

test('given a default that keeps for ever, projects without a policy have none and the default does not run', () => {
  assert.equal(
    policyRuns([project(1, null), project(2, week)], 0, true, NOW).map((r) => r.rule.policy),
    ['7'],
  );
});

test('given the traces past each policy, then per run its record first, then one expiry per project that has any', () => {
  const runs = policyRuns([project(1, week), project(4, week)], 0, false, NOW);
  const commands = retentionCommands(runs, new Map([['p4', ['t1', 't2']]]), NOW);
  assert.equal(commands, [
    {
      type: 'RecordRetentionRun',
      run: {
        policyId: '7',
        ranAt: NOW.toISOString(),
        startedBefore: '2026-03-03T00:00:00.000Z',
        maxTraces: null,
        projects: 2,
        expiredTraces: 2,
      },
    },
    {
      type: 'ExpireTraces',
      projectId: 'p4',
      projectName: 'project 4',
      traceIds: ['t1', 't2'],
      policy: '7',
      startedBefore: '2026-03-03T00:00:00.000Z',
      maxTraces: null,
    },
  ]);
});

test('given a policy assigned to one project and another policy changed, then only their projects are touched', () => {
  const event = (type: string, data: unknown) => ({ type, data }) as StoredEvent;
  const projects = [project(1, week), project(2, last100), project(3, null), project(4, null)];
  const touched = touchedByPolicyChanges(
    [
      event('ProjectTraceRetentionPolicySet', { projectId: 'p3', policyId: 7 }),
      event('TraceRetentionPolicyChanged', { policyId: 9, name: 'x', maxDays: null, maxTraces: 50 }),
    ],
    projects,
  );
  assert.equal(
    touched.map((p) => p.id),
    [2, 3],
  );
});

test.run();
