export {
  ALERT_METRICS,
  type AlertCondition,
  type AlertMetric,
  type AlertRule,
  type AlertState,
  NO_DATA_POLICIES,
  type NoDataPolicy,
  type PlaintextSlackDestination,
  type RegressionCondition,
  type SealedDestination,
  THRESHOLD_OPS,
  type ThresholdCondition,
  type ThresholdOp,
} from './events.ts';

export const MIN_WINDOW_SECONDS = 10;
export const MIN_EVALUATION_INTERVAL_SECONDS = 5;
/** A day: windows are read from the hourly rollup, but a rule is about "now", not last quarter. */
export const MAX_WINDOW_SECONDS = 7 * 86_400;
export const MAX_DESTINATIONS = 10;
export const ALERT_NAME_MAX = 200;
export const ALERTS_PER_PROJECT = 1000;
