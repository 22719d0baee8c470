import type { DomainEvent } from '../decider.ts';
import type { AlertRule, AlertState } from './alertRule.ts';

export type AlertRuleCreated = DomainEvent<
  'AlertRuleCreated',
  { readonly alertId: string; readonly projectId: string; readonly rule: AlertRule }
>;

/** The whole rule as it is now (a PATCH merged into it). */
export type AlertRuleChanged = DomainEvent<
  'AlertRuleChanged',
  { readonly alertId: string; readonly projectId: string; readonly rule: AlertRule }
>;

export type AlertRuleDeleted = DomainEvent<
  'AlertRuleDeleted',
  { readonly alertId: string; readonly projectId: string; readonly name: string }
>;

/**
 * A rule moved from one state to another at an evaluation (the audit trail's "when it fired").
 * `value` is the window's (null: no data); `baseline` the previous window's for a regression.
 * Notifications go out for these only: into FIRING, and out of FIRING (RESOLVED).
 */
export type AlertStateChanged = DomainEvent<
  'AlertStateChanged',
  {
    readonly alertId: string;
    readonly projectId: string;
    readonly from: AlertState;
    readonly to: AlertState;
    readonly value: number | null;
    readonly baseline: number | null;
    readonly windowStart: string;
    readonly windowEnd: string;
  }
>;

export type AlertEvent = AlertRuleCreated | AlertRuleChanged | AlertRuleDeleted | AlertStateChanged;
