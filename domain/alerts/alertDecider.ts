import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import type { AlertRule, AlertState } from './alertRule.ts';
import type { AlertCommand } from './commands.ts';
import type { AlertEvent } from './events.ts';

export type AlertRuleState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active';
      readonly alertId: string;
      readonly projectId: string;
      readonly rule: AlertRule;
      readonly state: AlertState;
    }
  | { readonly status: 'deleted'; readonly alertId: string };

const notFound = (alertId: string) => new DomainError('alert_not_found', `Alert rule not found: ${alertId}`, 'not_found');

const decide = (c: AlertCommand, s: AlertRuleState): AlertEvent[] => {
  switch (c.type) {
    case 'CreateAlertRule':
      if (s.status !== 'absent') throw new DomainError('alert_exists', `Alert rule ${c.alertId} already exists`, 'conflict');
      return [{ type: 'AlertRuleCreated', data: { alertId: c.alertId, projectId: c.projectId, rule: c.rule } }];
    case 'ChangeAlertRule':
      if (s.status !== 'active') throw notFound(c.alertId);
      return JSON.stringify(c.rule) === JSON.stringify(s.rule)
        ? []
        : [{ type: 'AlertRuleChanged', data: { alertId: s.alertId, projectId: s.projectId, rule: c.rule } }];
    case 'DeleteAlertRule':
      if (s.status !== 'active') throw notFound(c.alertId);
      return [{ type: 'AlertRuleDeleted', data: { alertId: s.alertId, projectId: s.projectId, name: s.rule.name } }];
    case 'RecordAlertState': {
      // A verdict on a deleted rule, or one that changes nothing (an evaluation repeated after a
      // crash, a second evaluator's late verdict), is no transition: nothing is appended.
      if (s.status !== 'active' || s.state === c.to) return [];
      const { type: _, ...verdict } = c;
      return [{ type: 'AlertStateChanged', data: { ...verdict, projectId: s.projectId, from: s.state } }];
    }
  }
};

const evolve = (s: AlertRuleState, e: AlertEvent): AlertRuleState => {
  switch (e.type) {
    case 'AlertRuleCreated':
      return { status: 'active', alertId: e.data.alertId, projectId: e.data.projectId, rule: e.data.rule, state: 'NO_DATA' };
    case 'AlertRuleChanged':
      return s.status === 'active' ? { ...s, rule: e.data.rule } : s;
    case 'AlertRuleDeleted':
      return { status: 'deleted', alertId: e.data.alertId };
    case 'AlertStateChanged':
      return s.status === 'active' ? { ...s, state: e.data.to } : s;
  }
};

/** One alert rule: its definition and the states its evaluations moved it through. */
export const alertDecider: Decider<AlertRuleState, AlertCommand, AlertEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve,
  decide,
};
