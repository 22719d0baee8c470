import { test } from 'uvu';
import type { ProjectEvent } from '../../../domain/projects/events.ts';
import { telemetryDeletionDecider } from '../../../domain/tracing/telemetryDeletionDecider.ts';
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

test('an empty session id is refused', () => {
  spec
    .given([created])
    .when({ type: 'DeleteSessions', projectId: 'p1', sessionIds: [''] })
    .thenThrows('invalid_session_id');
});

test.run();
