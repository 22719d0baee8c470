import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '../../../domain/decider.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import { retentionReactor } from '../../../projections/retention/retentionReactor.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { memoryEventStore } from '../../support/memoryEventStore.ts';
import { inStream, reactorSpec } from '../../support/reactorSpec.ts';
import { batch, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';

const P = '11111111-1111-4111-8111-111111111111';
const created: DomainEvent = {
  type: 'ProjectCreated',
  data: { projectId: P, name: 'shop', description: null, gradientStartColor: '#000000', gradientEndColor: '#ffffff' },
};
const now = new Date('2026-03-20T12:00:00Z');
const old = newTraceId();
const recent = newTraceId();
const at = (traceId: string, iso: string) => spanRecord({ traceId, startTimeUnixNano: nanos(iso), endTimeUnixNano: nanos(iso) });
const ingested: DomainEvent = {
  type: 'SpansIngested',
  data: { ...batch('shop', [at(old, '2026-03-10T12:00:00Z'), at(recent, '2026-03-20T11:00:00Z')]), projectId: P },
};
const reactor = (days: number) => retentionReactor({ store: memoryEventStore().store, days, everyMs: 3_600_000 });

test('given traces started ten days ago and now, when a 7-day default policy runs, then only the old trace expires', async () => {
  await reactorSpec(reactor(7), { readModels: [tracingProjection] })
    .given(inStream(projectStream('shop'), created), inStream('spans-a', ingested))
    .onSchedule(now)
    .then([{ projectId: P, projectName: 'shop', traceIds: [old], policy: 'default', startedBefore: '2026-03-13T12:00:00.000Z' }]);
});

test('given old traces, when no default policy is set (0 days), then nothing expires', async () => {
  await reactorSpec(reactor(0), { readModels: [tracingProjection] })
    .given(inStream(projectStream('shop'), created), inStream('spans-a', ingested))
    .onSchedule(now)
    .then([]);
});

test.run();
