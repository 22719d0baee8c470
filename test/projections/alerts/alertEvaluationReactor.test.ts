import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AlertRule } from '../../../domain/alerts/alertRule.ts';
import { alertStream } from '../../../domain/alerts/alertStream.ts';
import type { DomainEvent } from '../../../domain/decider.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import { alertEvaluationReactor } from '../../../projections/alerts/alertEvaluationReactor.ts';
import { alertsProjection } from '../../../projections/alerts/alertsProjection.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { memoryEventStore } from '../../support/memoryEventStore.ts';
import { inStream, reactorSpec } from '../../support/reactorSpec.ts';
import { batch, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';

const P = '11111111-1111-4111-8111-111111111111';
const now = new Date('2026-03-20T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const project: DomainEvent = {
  type: 'ProjectCreated',
  data: { projectId: P, name: 'shop', description: null, gradientStartColor: '#000000', gradientEndColor: '#ffffff' },
};
/** Traces of one span each: started `startMsAgo` before now, lasting `ms`, with an error or not. */
const traces = (list: readonly { startMsAgo: number; ms: number; error?: boolean }[]): DomainEvent => ({
  type: 'SpansIngested',
  data: {
    ...batch(
      'shop',
      list.map((t) =>
        spanRecord({
          traceId: newTraceId(),
          status: { code: t.error ? 'ERROR' : 'OK', message: '' },
          startTimeUnixNano: nanos(ago(t.startMsAgo)),
          endTimeUnixNano: nanos(ago(t.startMsAgo - t.ms)),
        }),
      ),
    ),
    projectId: P,
  },
});
const rule = (over: Partial<AlertRule>): AlertRule => ({
  name: 'r',
  metric: 'error_rate',
  annotationName: null,
  annotationLabel: null,
  filter: '',
  windowSeconds: 20,
  evaluationIntervalSeconds: 5,
  condition: { kind: 'threshold', op: '>', threshold: 0.2 },
  noData: 'OK',
  destinations: [],
  ...over,
});
const created = (alertId: string, r: AlertRule): DomainEvent => ({ type: 'AlertRuleCreated', data: { alertId, projectId: P, rule: r } });
const spec = reactorSpec(alertEvaluationReactor({ store: memoryEventStore().store, pool: undefined as never, tickMs: 1000 }), {
  readModels: [tracingProjection, alertsProjection],
});

test('given half the window’s traces with an error, when a > 20 % rule is evaluated, then it moves to FIRING with the value and its window', async () => {
  await spec
    .given(
      inStream(projectStream('shop'), project),
      inStream(
        'tracing-1',
        traces([
          { startMsAgo: 8000, ms: 50, error: true },
          { startMsAgo: 8000, ms: 50 },
          { startMsAgo: 30_000, ms: 50 },
        ]),
      ),
      inStream(alertStream('a1'), created('a1', rule({}))),
    )
    .onSchedule(now)
    .then([
      {
        evaluations: [
          {
            alertId: 'a1',
            evaluatedAt: now.toISOString(),
            value: 0.5,
            baseline: null,
            transition: {
              type: 'RecordAlertState',
              alertId: 'a1',
              to: 'FIRING',
              value: 0.5,
              baseline: null,
              windowStart: ago(20_000),
              windowEnd: now.toISOString(),
            },
          },
        ],
      },
    ]);
});

test('given a window with no traces, then an error rate is no data: the OK policy moves a new rule to OK', async () => {
  await spec
    .given(inStream(projectStream('shop'), project), inStream(alertStream('a1'), created('a1', rule({}))))
    .onSchedule(now)
    .thenMatches(([{ evaluations }]) => {
      assert.is(evaluations[0]!.value, null);
      assert.is(evaluations[0]!.transition?.to, 'OK');
    });
});

test('given p95 of 100 ms in the minute before and 1 s now, then a regression rule measures both windows and fires', async () => {
  const r = rule({
    metric: 'latency_p95',
    windowSeconds: 10,
    condition: { kind: 'regression', baselineWindowSeconds: 60, changePercent: 100, direction: 'up' },
  });
  await spec
    .given(
      inStream(projectStream('shop'), project),
      inStream(
        'tracing-1',
        traces([...Array.from({ length: 10 }, (_, i) => ({ startMsAgo: 60_000 - i * 4000, ms: 100 })), { startMsAgo: 5000, ms: 1000 }]),
      ),
      inStream(alertStream('a2'), created('a2', r)),
    )
    .onSchedule(now)
    .thenMatches(
      ([
        {
          evaluations: [c],
        },
      ]) => {
        assert.ok(Math.abs(c!.value! - 1000) < 1e-6, String(c!.value));
        assert.ok(Math.abs(c!.baseline! - 100) < 1e-6, String(c!.baseline));
        assert.is(c!.transition?.to, 'FIRING');
        assert.is(c!.transition?.windowStart, ago(10_000));
      },
    );
});

test('given a window of whole hours and a partial one, then counts and latency come from the hourly rollup and the trace rows alike', async () => {
  // [08:30, 12:00): 08:30–09:00 from the trace rows, 09:00–12:00 from the rollup.
  const over = { windowSeconds: 3 * 3600 + 1800 };
  const count = rule({ ...over, metric: 'trace_count', condition: { kind: 'threshold', op: '>=', threshold: 4 } });
  const p95 = rule({ ...over, metric: 'latency_p95', condition: { kind: 'threshold', op: '>', threshold: 150 } });
  await spec
    .given(
      inStream(projectStream('shop'), project),
      inStream(
        'tracing-1',
        traces([
          { startMsAgo: 3 * 3600_000 + 15 * 60_000, ms: 100 }, // 08:45, in the partial hour
          { startMsAgo: 2 * 3600_000 + 60_000, ms: 100 },
          { startMsAgo: 2 * 3600_000, ms: 100 },
          { startMsAgo: 60_000, ms: 200 },
          { startMsAgo: 4 * 3600_000, ms: 5000 }, // 08:00: outside
        ]),
      ),
      inStream(alertStream('a3'), created('a3', count)),
      inStream(alertStream('a4'), created('a4', p95)),
    )
    .onSchedule(now)
    .thenMatches(([{ evaluations }]) => {
      const [c, l] = evaluations;
      assert.is(c!.value, 4);
      assert.is(c!.transition?.to, 'FIRING');
      // Exact p95 of 100, 100, 100, 200 is 185; the rollup's bins place it within 5 %.
      assert.ok(Math.abs(l!.value! - 185) / 185 < 0.06, String(l!.value));
      assert.is(l!.transition?.to, 'FIRING');
    });
});

test('given rules on windows of their own, then one read cut at every window’s ends counts each window’s traces and no other', async () => {
  const count = (windowSeconds: number, over: Partial<AlertRule> = {}) =>
    rule({ metric: 'trace_count', windowSeconds, condition: { kind: 'threshold', op: '>', threshold: 100 }, ...over });
  await spec
    .given(
      inStream(projectStream('shop'), project),
      inStream(
        'tracing-1',
        traces([
          { startMsAgo: 10_000, ms: 50, error: true },
          { startMsAgo: 20_000, ms: 50 },
          { startMsAgo: 30_000, ms: 50 },
          { startMsAgo: 50_000, ms: 50 },
          { startMsAgo: 70_000, ms: 50 },
          { startMsAgo: 90_000, ms: 50 },
        ]),
      ),
      inStream(alertStream('w15'), created('w15', count(15))),
      inStream(alertStream('w25'), created('w25', count(25, { metric: 'error_rate' }))),
      inStream(
        alertStream('w40'),
        created('w40', count(40, { condition: { kind: 'regression', baselineWindowSeconds: 40, changePercent: 10, direction: 'up' } })),
      ),
    )
    .onSchedule(now)
    .thenMatches(([{ evaluations }]) => {
      const by = new Map(evaluations.map((e) => [e.alertId, e]));
      assert.is(by.get('w15')!.value, 1);
      assert.is(by.get('w25')!.value, 0.5);
      assert.is(by.get('w40')!.value, 3);
      // [now-80 s, now-40 s): the traces 50 s and 70 s ago.
      assert.is(by.get('w40')!.baseline, 2);
    });
});

test.run();
