import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AlertRule, AlertState } from '../../../domain/alerts/alertRule.ts';
import { alertVerdict, notificationOf, type Measurement } from '../../../domain/alerts/alertVerdict.ts';

type Rule = Pick<AlertRule, 'condition' | 'noData'>;
const above20: Rule = { condition: { kind: 'threshold', op: '>', threshold: 0.2 }, noData: 'OK' };
const p95Doubled: Rule = {
  condition: { kind: 'regression', baselineWindowSeconds: 60, changePercent: 100, direction: 'up' },
  noData: 'KEEP',
};

/** given a rule and its previous state, when a window is measured, then the state it is in (and what is told). */
const given = (rule: Rule, previous: AlertState) => ({
  when: (m: Measurement) => ({
    then: (state: AlertState, told: 'FIRING' | 'RESOLVED' | null) => {
      const next = alertVerdict(rule, previous, m);
      assert.is(next, state);
      assert.is(notificationOf(previous, next), told);
    },
  }),
});

test('a threshold: above it fires, once; below it resolves; at it is not above', () => {
  given(above20, 'OK').when({ value: 0.5, baseline: null }).then('FIRING', 'FIRING');
  given(above20, 'FIRING').when({ value: 0.5, baseline: null }).then('FIRING', null);
  given(above20, 'FIRING').when({ value: 0, baseline: null }).then('OK', 'RESOLVED');
  given(above20, 'OK').when({ value: 0.2, baseline: null }).then('OK', null);
  given({ ...above20, condition: { kind: 'threshold', op: '>=', threshold: 0.2 } }, 'OK')
    .when({ value: 0.2, baseline: null })
    .then('FIRING', 'FIRING');
  given({ ...above20, condition: { kind: 'threshold', op: '<', threshold: 0.8 } }, 'NO_DATA')
    .when({ value: 0.5, baseline: null })
    .then('FIRING', 'FIRING');
});

test('a new rule leaves NO_DATA silently when its first window is fine', () => {
  given(above20, 'NO_DATA').when({ value: 0.1, baseline: null }).then('OK', null);
});

test('no data follows the policy: OK resolves, ALERT fires, KEEP stays (and a rule that never saw data stays NO_DATA)', () => {
  given(above20, 'FIRING').when({ value: null, baseline: null }).then('OK', 'RESOLVED');
  given({ ...above20, noData: 'ALERT' }, 'OK')
    .when({ value: null, baseline: null })
    .then('FIRING', 'FIRING');
  given({ ...above20, noData: 'KEEP' }, 'FIRING')
    .when({ value: null, baseline: null })
    .then('FIRING', null);
  given({ ...above20, noData: 'KEEP' }, 'NO_DATA')
    .when({ value: null, baseline: null })
    .then('NO_DATA', null);
});

test('a regression: p95 from 100 ms to 1 s is up 900 % and fires; up 50 % does not; a fall does not fire "up" but a fall of more than 50 % fires "down 50"', () => {
  given(p95Doubled, 'OK').when({ value: 1000, baseline: 100 }).then('FIRING', 'FIRING');
  given(p95Doubled, 'OK').when({ value: 150, baseline: 100 }).then('OK', null);
  given(p95Doubled, 'OK').when({ value: 10, baseline: 100 }).then('OK', null);
  given({ ...p95Doubled, condition: { ...p95Doubled.condition, changePercent: 50, direction: 'down' } as Rule['condition'] }, 'OK')
    .when({ value: 10, baseline: 100 })
    .then('FIRING', 'FIRING');
});

test('a regression without a baseline window is no data (KEEP: as before); from zero to something is an unbounded rise', () => {
  given(p95Doubled, 'OK').when({ value: 1000, baseline: null }).then('OK', null);
  given(p95Doubled, 'OK').when({ value: 5, baseline: 0 }).then('FIRING', 'FIRING');
});

test.run();
