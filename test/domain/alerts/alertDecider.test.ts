import { test } from 'uvu';
import { alertDecider } from '../../../domain/alerts/alertDecider.ts';
import type { AlertRule } from '../../../domain/alerts/alertRule.ts';
import type { AlertEvent } from '../../../domain/alerts/events.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';

const spec = deciderSpec(alertDecider);
const rule: AlertRule = {
  name: 'Errors up',
  metric: 'error_rate',
  annotationName: null,
  annotationLabel: null,
  filter: '',
  windowSeconds: 20,
  evaluationIntervalSeconds: 5,
  condition: { kind: 'threshold', op: '>', threshold: 0.2 },
  noData: 'OK',
  destinations: [],
};
const created: AlertEvent = { type: 'AlertRuleCreated', data: { alertId: 'a1', projectId: 'p1', rule } };
const window = { windowStart: '2026-01-01T00:00:00.000Z', windowEnd: '2026-01-01T00:00:20.000Z' };
const verdict = (to: 'OK' | 'FIRING' | 'NO_DATA', value: number | null) =>
  ({ type: 'RecordAlertState', alertId: 'a1', to, value, baseline: null, ...window }) as const;
const fired: AlertEvent = {
  type: 'AlertStateChanged',
  data: { alertId: 'a1', projectId: 'p1', from: 'NO_DATA', to: 'FIRING', value: 0.5, baseline: null, ...window },
};

test('a rule is created once', () => {
  spec.given([]).when({ type: 'CreateAlertRule', alertId: 'a1', projectId: 'p1', rule }).then([created]);
  spec.given([created]).when({ type: 'CreateAlertRule', alertId: 'a1', projectId: 'p1', rule }).thenThrows('alert_exists');
});

test('a verdict that moves the rule is a transition from its state; the same verdict again is nothing', () => {
  spec.given([created]).when(verdict('FIRING', 0.5)).then([fired]);
  spec.given([created, fired]).when(verdict('FIRING', 0.6)).then([]);
  spec
    .given([created, fired])
    .when(verdict('OK', 0))
    .then([
      {
        type: 'AlertStateChanged',
        data: { alertId: 'a1', projectId: 'p1', from: 'FIRING', to: 'OK', value: 0, baseline: null, ...window },
      },
    ]);
});

test('a deleted rule takes no verdict and no change', () => {
  const deleted: AlertEvent = { type: 'AlertRuleDeleted', data: { alertId: 'a1', projectId: 'p1', name: 'Errors up' } };
  spec.given([created]).when({ type: 'DeleteAlertRule', alertId: 'a1' }).then([deleted]);
  spec.given([created, deleted]).when(verdict('FIRING', 0.5)).then([]);
  spec.given([created, deleted]).when({ type: 'ChangeAlertRule', alertId: 'a1', rule }).thenThrows('alert_not_found');
  spec.given([]).when({ type: 'DeleteAlertRule', alertId: 'a1' }).thenThrows('alert_not_found');
});

test('a change that changes nothing appends nothing', () => {
  spec.given([created]).when({ type: 'ChangeAlertRule', alertId: 'a1', rule }).then([]);
  spec
    .given([created])
    .when({ type: 'ChangeAlertRule', alertId: 'a1', rule: { ...rule, windowSeconds: 60 } })
    .then([{ type: 'AlertRuleChanged', data: { alertId: 'a1', projectId: 'p1', rule: { ...rule, windowSeconds: 60 } } }]);
});

test.run();
