import { test } from 'uvu';
import type { ProjectEvent } from '../../../domain/projects/events.ts';
import { MAX_EXPIRED_PER_EVENT, telemetryDeletionDecider } from '../../../domain/tracing/telemetryDeletionDecider.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';

const spec = deciderSpec(telemetryDeletionDecider);
const created: ProjectEvent = {
  type: 'ProjectCreated',
  data: { projectId: 'p1', name: 'shop', description: null, gradientStartColor: '#5bdbff', gradientEndColor: '#1c76fc' },
};

test('given an active project, when spans, traces or sessions are deleted, then one event per distinct id', () => {
  spec
    .given([created])
    .when({ type: 'DeleteSpans', projectId: 'p1', spanIds: ['a', 'b', 'a'] })
    .then([
      { type: 'SpanDeleted', data: { projectId: 'p1', spanId: 'a' } },
      { type: 'SpanDeleted', data: { projectId: 'p1', spanId: 'b' } },
    ]);
  spec
    .given([created])
    .when({ type: 'DeleteTraces', projectId: 'p1', traceIds: ['t'] })
    .then([{ type: 'TraceDeleted', data: { projectId: 'p1', traceId: 't' } }]);
  spec
    .given([created])
    .when({ type: 'DeleteSessions', projectId: 'p1', sessionIds: ['s'] })
    .then([{ type: 'SessionDeleted', data: { projectId: 'p1', sessionId: 's' } }]);
});

test('given a deleted or never created project, deleting its telemetry is project_not_found', () => {
  spec
    .given([])
    .when({ type: 'DeleteSpans', projectId: 'p1', spanIds: ['a'] })
    .thenThrows('project_not_found');
  spec
    .given([created, { type: 'ProjectDeleted', data: { projectId: 'p1', name: 'shop' } }])
    .when({ type: 'DeleteTraces', projectId: 'p1', traceIds: ['t'] })
    .thenThrows('project_not_found');
});

test('given an active project, when a policy run expires traces, then one TracesExpired lists them (ids once, with the rule applied)', () => {
  spec
    .given([created])
    .when({
      type: 'ExpireTraces',
      projectId: 'p1',
      policyId: '7',
      startedBefore: '2026-03-13T12:00:00.000Z',
      maxTraces: null,
      traceIds: ['a', 'b', 'a'],
    })
    .then([
      {
        type: 'TracesExpired',
        data: { projectId: 'p1', policyId: '7', startedBefore: '2026-03-13T12:00:00.000Z', maxTraces: null, traceIds: ['a', 'b'] },
      },
    ]);
  spec
    .given([created])
    .when({ type: 'ExpireTraces', projectId: 'p1', policyId: 'default', startedBefore: null, maxTraces: 3, traceIds: [] })
    .then([]);
});

test('a run expiring more than 5,000 traces of a project is one TracesExpired per 5,000, in order', () => {
  const ids = Array.from({ length: 2 * MAX_EXPIRED_PER_EVENT + 1 }, (_, i) => `t${i}`);
  spec
    .given([created])
    .when({ type: 'ExpireTraces', projectId: 'p1', policyId: '7', startedBefore: null, maxTraces: 10, traceIds: ids })
    .then(
      [ids.slice(0, 5000), ids.slice(5000, 10_000), ids.slice(10_000)].map((traceIds) => ({
        type: 'TracesExpired',
        data: { projectId: 'p1', policyId: '7', startedBefore: null, maxTraces: 10, traceIds },
      })),
    );
});

test('a policy run on a project deleted meanwhile is project_not_found (the retention reactor lets it go)', () => {
  spec
    .given([created, { type: 'ProjectDeleted', data: { projectId: 'p1', name: 'shop' } }])
    .when({ type: 'ExpireTraces', projectId: 'p1', policyId: '7', startedBefore: null, maxTraces: 10, traceIds: ['t'] })
    .thenThrows('project_not_found');
});

test('an empty session id is refused', () => {
  spec
    .given([created])
    .when({ type: 'DeleteSessions', projectId: 'p1', sessionIds: [''] })
    .thenThrows('invalid_session_id');
});

test.run();
