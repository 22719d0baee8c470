import type { AlertRule, AlertState } from './alertRule.ts';

export type CreateAlertRule = {
  readonly type: 'CreateAlertRule';
  readonly alertId: string;
  readonly projectId: string;
  readonly rule: AlertRule;
};
export type ChangeAlertRule = { readonly type: 'ChangeAlertRule'; readonly alertId: string; readonly rule: AlertRule };
export type DeleteAlertRule = { readonly type: 'DeleteAlertRule'; readonly alertId: string };

/** The evaluator's verdict on a rule: recorded only when it moves the rule to another state. */
export type RecordAlertState = {
  readonly type: 'RecordAlertState';
  readonly alertId: string;
  readonly to: AlertState;
  readonly value: number | null;
  readonly baseline: number | null;
  readonly windowStart: string;
  readonly windowEnd: string;
};

export type AlertCommand = CreateAlertRule | ChangeAlertRule | DeleteAlertRule | RecordAlertState;
