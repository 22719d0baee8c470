import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '../../../domain/decider.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import { telemetryDeletionStream } from '../../../domain/tracing/tracingStream.ts';
import { erasureReactor, type RemoveContent } from '../../../projections/retention/erasureReactor.ts';
import { traceRetentionPoliciesProjection } from '../../../projections/retention/traceRetentionPoliciesProjection.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { memoryEventStore } from '../../support/memoryEventStore.ts';
import { inStream, reactorSpec } from '../../support/reactorSpec.ts';
import { attrs, batch, newTraceId, spanRecord } from '../../support/spanFixtures.ts';

const P = '11111111-1111-4111-8111-111111111111';
const created: DomainEvent = {
  type: 'ProjectCreated',
  data: { projectId: P, name: 'shop', description: null, gradientStartColor: '#000000', gradientEndColor: '#ffffff' },
};
const kept = newTraceId();
const gone = newTraceId();
const keptSpan = spanRecord({ traceId: kept, attributes: attrs({ 'session.id': 'sess-keep' }) });
const goneRoot = spanRecord({ traceId: gone, attributes: attrs({ 'session.id': 'sess-gone' }) });
const goneChild = spanRecord({ traceId: gone, parentId: goneRoot.spanId });
const ingested: DomainEvent = { type: 'SpansIngested', data: { ...batch('shop', [keptSpan, goneRoot, goneChild]), projectId: P } };

// The spec never issues: the store and pool behind `issue` are not used.
const reactor = erasureReactor({ store: memoryEventStore().store, pool: undefined as never, fullVacuum: false });
const spec = reactorSpec(reactor, { readModels: [tracingProjection, traceRetentionPoliciesProjection] });

test('given a trace deleted after its spans were projected, then one removal of exactly its spans from their event', async () => {
  await spec
    .given(
      inStream(projectStream('shop'), created),
      inStream('spans-a', ingested),
      inStream(telemetryDeletionStream(P), { type: 'TraceDeleted', data: { projectId: P, traceId: gone } }),
    )
    .thenMatches((commands) => {
      assert.is(commands.length, 1);
      const [c] = commands as RemoveContent[];
      assert.equal(
        c!.deletions.map((d) => d.type),
        ['TraceDeleted'],
      );
      assert.is(c!.kind, 'erasure');
      assert.is(c!.projectId, P);
      assert.is(c!.spans.length, 1, 'one source event');
      assert.equal([...c!.spans[0]!.spanIds].sort(), [goneRoot.spanId, goneChild.spanId].sort());
      assert.equal(c!.targets.traceIds, [gone]);
      assert.equal(c!.targets.sessionIds, ['sess-gone'], 'the session left without traces goes with its annotations');
      assert.is(c!.actor, 'test');
    });
});

test('given a span deleted from a trace that keeps other spans, then only that span goes; its trace keeps its annotations', async () => {
  await spec
    .given(
      inStream(projectStream('shop'), created),
      inStream('spans-a', ingested),
      inStream(telemetryDeletionStream(P), { type: 'SpanDeleted', data: { projectId: P, spanId: goneChild.spanId } }),
    )
    .thenMatches((commands) => {
      const [c] = commands as RemoveContent[];
      assert.equal(c!.spans[0]!.spanIds, [goneChild.spanId]);
      assert.equal(c!.targets, { spanIds: [goneChild.spanId], traceIds: [], sessionIds: [] });
    });
});

test('given a deletion that matched nothing, then no command', async () => {
  await spec
    .given(
      inStream(projectStream('shop'), created),
      inStream(telemetryDeletionStream(P), { type: 'TraceDeleted', data: { projectId: P, traceId: newTraceId() } }),
    )
    .then([]);
});

test('given a policy run’s TracesExpired, then one removal of kind retention takes exactly the listed traces’ spans, naming the policy and the event’s cut-off', async () => {
  const other = newTraceId();
  const otherSpan = spanRecord({ traceId: other });
  await spec
    .given(
      inStream(projectStream('shop'), created),
      inStream('spans-a', ingested),
      inStream('spans-b', { type: 'SpansIngested', data: { ...batch('shop', [otherSpan]), projectId: P } }),
      {
        ...inStream(
          telemetryDeletionStream(P),
          {
            type: 'TracesExpired',
            data: { projectId: P, policyId: '7', startedBefore: '2026-03-13T12:00:00.000Z', maxTraces: null, traceIds: [gone] },
          },
          // The rest of a run bigger than one event: the same removal.
          {
            type: 'TracesExpired',
            data: {
              projectId: P,
              policyId: '7',
              startedBefore: '2026-03-13T12:00:00.000Z',
              maxTraces: null,
              traceIds: [other, newTraceId()],
            },
          },
        ),
        actor: 'retention:7',
      },
    )
    .thenMatches((commands) => {
      assert.is(commands.length, 1);
      const [c] = commands as RemoveContent[];
      assert.equal([c!.kind, c!.policyId, c!.cutoff, c!.projectId], ['retention', '7', '2026-03-13T12:00:00.000Z', P]);
      assert.equal(
        c!.deletions.map((d) => d.type),
        ['TracesExpired', 'TracesExpired'],
      );
      assert.equal(c!.spans.flatMap((s) => s.spanIds).sort(), [goneRoot.spanId, goneChild.spanId, otherSpan.spanId].sort());
      assert.equal(c!.targets.traceIds, [gone, other].sort());
      assert.equal(c!.targets.sessionIds, ['sess-gone']);
      assert.is(c!.actor, 'retention:7');
    });
});

test('given two runs of a policy in one batch, then one removal each, with its own cut-off', async () => {
  const other = newTraceId();
  const otherSpan = spanRecord({ traceId: other });
  const expired = (traceId: string, startedBefore: string): DomainEvent => ({
    type: 'TracesExpired',
    data: { projectId: P, policyId: '7', startedBefore, maxTraces: null, traceIds: [traceId] },
  });
  await spec
    .given(
      inStream(projectStream('shop'), created),
      inStream('spans-a', ingested),
      inStream('spans-b', { type: 'SpansIngested', data: { ...batch('shop', [otherSpan]), projectId: P } }),
      { ...inStream(telemetryDeletionStream(P), expired(gone, '2026-03-13T12:00:00.000Z')), actor: 'retention:7' },
      { ...inStream(telemetryDeletionStream(P), expired(other, '2026-03-13T13:00:00.000Z')), actor: 'retention:7' },
    )
    .thenMatches((commands) => {
      assert.equal(
        (commands as RemoveContent[]).map((c) => [c.cutoff, c.targets.traceIds]),
        [
          ['2026-03-13T12:00:00.000Z', [gone]],
          ['2026-03-13T13:00:00.000Z', [other]],
        ],
      );
    });
});

test('given one policy run’s deletions of two traces (a log written before TracesExpired), then one removal (kind retention) completes both; a user’s deletion stays its own', async () => {
  const other = newTraceId();
  const otherSpan = spanRecord({ traceId: other });
  const userGone = newTraceId();
  const userSpan = spanRecord({ traceId: userGone });
  await spec
    .given(
      inStream(projectStream('shop'), created),
      inStream('spans-a', ingested),
      inStream('spans-b', { type: 'SpansIngested', data: { ...batch('shop', [otherSpan, userSpan]), projectId: P } }),
      {
        ...inStream(
          telemetryDeletionStream(P),
          { type: 'TraceDeleted', data: { projectId: P, traceId: gone } },
          { type: 'TraceDeleted', data: { projectId: P, traceId: other } },
        ),
        actor: 'retention:7',
      },
      inStream('trace-retention-runs', {
        type: 'TraceRetentionApplied',
        data: {
          policyId: '7',
          ranAt: '2026-03-20T12:00:00.000Z',
          startedBefore: '2026-03-13T12:00:00.000Z',
          maxTraces: null,
          projects: 1,
          expiredTraces: 2,
        },
      }),
      inStream(telemetryDeletionStream(P), { type: 'TraceDeleted', data: { projectId: P, traceId: userGone } }),
    )
    .thenMatches((commands) => {
      const [run, user] = commands as RemoveContent[];
      assert.is(commands.length, 2);
      assert.equal([run!.kind, run!.policyId, run!.deletions.length], ['retention', '7', 2]);
      assert.is(run!.cutoff, '2026-03-13T12:00:00.000Z', 'the cut-off of the run that issued them');
      assert.equal(run!.targets.traceIds, [gone, other].sort());
      assert.equal(run!.spans.flatMap((s) => s.spanIds).sort(), [goneRoot.spanId, goneChild.spanId, otherSpan.spanId].sort());
      assert.equal([user!.kind, user!.deletions.length, user!.targets.traceIds], ['erasure', 1, [userGone]]);
    });
});

test.run();
