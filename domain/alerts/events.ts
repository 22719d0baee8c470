import type { DomainEvent } from '../decider.ts';
import type { EncryptedValue } from '../base/encryptedValue.ts';

/** What a rule watches, over its window. Latencies are of root spans (a trace's extent), in milliseconds. */
export const ALERT_METRICS = [
  'error_rate',
  'latency_p50',
  'latency_p95',
  'latency_p99',
  'trace_count',
  'cost',
  'tokens',
  'annotation_score',
] as const;
export type AlertMetric = (typeof ALERT_METRICS)[number];

export const THRESHOLD_OPS = ['>', '>=', '<', '<='] as const;
export type ThresholdOp = (typeof THRESHOLD_OPS)[number];

/** Fires when the window's value crosses a fixed line. */
export type ThresholdCondition = { readonly kind: 'threshold'; readonly op: ThresholdOp; readonly threshold: number };

/**
 * Fires when the window's value moved by more than `changePercent` against the window of
 * `baselineWindowSeconds` just before it (`up`: grew, `down`: fell).
 */
export type RegressionCondition = {
  readonly kind: 'regression';
  readonly baselineWindowSeconds: number;
  readonly changePercent: number;
  readonly direction: 'up' | 'down';
};

export type AlertCondition = ThresholdCondition | RegressionCondition;

/** What a window without data means: `OK` (quiet is fine), `KEEP` (stay as before), `ALERT` (silence is a failure). */
export const NO_DATA_POLICIES = ['OK', 'KEEP', 'ALERT'] as const;
export type NoDataPolicy = (typeof NO_DATA_POLICIES)[number];

/**
 * A Slack destination as events before issue 37's fix hold it: the incoming-webhook URL (whose path
 * is the credential) in plaintext. Still read, so a rebuild and a delivery of an old rule work; the
 * rule's next change seals it (domain/alerts/sealDestinations.ts).
 */
export type PlaintextSlackDestination = { readonly type: 'slack'; readonly url: string };

/**
 * A destination as the log keeps it: a webhook's signing secret and a Slack incoming-webhook URL
 * (the URL is Slack's credential) are sealed (domain/secrets/crypto.ts) before any event holds
 * them. A Slack destination keeps only its host in clear, for the API to say where it goes.
 */
export type SealedDestination =
  | { readonly type: 'webhook'; readonly url: string; readonly secret: EncryptedValue }
  | { readonly type: 'slack'; readonly host: string; readonly sealedUrl: EncryptedValue }
  | PlaintextSlackDestination;

/** A rule as the log keeps it. */
export type AlertRule = {
  readonly name: string;
  readonly metric: AlertMetric;
  /** `annotation_score` only: the annotation's name, and optionally a label whose pass rate is watched instead of the mean score. */
  readonly annotationName: string | null;
  readonly annotationLabel: string | null;
  /** The span filter language, over traces (a trace counts when it matches); '' for none. */
  readonly filter: string;
  readonly windowSeconds: number;
  readonly evaluationIntervalSeconds: number;
  readonly condition: AlertCondition;
  readonly noData: NoDataPolicy;
  readonly destinations: readonly SealedDestination[];
};

/** The states a rule is in. A new rule has seen no window yet: `NO_DATA`. */
export type AlertState = 'OK' | 'FIRING' | 'NO_DATA';

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
