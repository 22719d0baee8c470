import type { AlertCondition, SealedDestination } from '../../../domain/alerts/alertRule.ts';
import { slackHost } from '../../../domain/alerts/sealDestinations.ts';
import type { AlertDeliveryRow, AlertRow, AlertTransitionRow } from '../../../projections/alerts/alertQueries.ts';
import { globalIdOf } from '../../http/globalId.ts';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export const conditionJson = (c: AlertCondition) =>
  c.kind === 'threshold'
    ? { op: c.op, threshold: c.threshold }
    : { baseline_window_seconds: c.baselineWindowSeconds, change_percent: c.changePercent, direction: c.direction };

/**
 * A destination as the API shows it, to every reader: never a credential, only that it is set —
 * a webhook's secret, and a Slack URL (its path is the credential: only its host is shown).
 */
export const destinationJson = (d: SealedDestination) =>
  d.type === 'webhook' ? { type: d.type, url: d.url, secret_set: true } : { type: d.type, url_set: true, host: slackHost(d) };

/** A rule as the API shows it: never a webhook's secret nor a Slack URL (only that they are set). */
export const alertJson = (row: AlertRow, projectRowid: number) => ({
  id: row.alert_id,
  project_id: globalIdOf('Project', projectRowid),
  name: row.rule.name,
  metric: row.rule.metric,
  annotation_name: row.rule.annotationName,
  annotation_label: row.rule.annotationLabel,
  filter: row.rule.filter,
  window_seconds: row.rule.windowSeconds,
  evaluation_interval_seconds: row.rule.evaluationIntervalSeconds,
  condition: conditionJson(row.rule.condition),
  no_data: row.rule.noData,
  destinations: row.rule.destinations.map(destinationJson),
  state: row.state,
  state_since: iso(row.state_since),
  last_value: row.value,
  last_baseline: row.baseline,
  last_evaluated_at: iso(row.evaluated_at),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});

export const alertTransitionJson = (t: AlertTransitionRow) => ({
  from: t.from_state,
  to: t.to_state,
  value: t.value,
  baseline: t.baseline,
  window_start: iso(t.window_start),
  window_end: iso(t.window_end),
  at: iso(t.at),
});

export const alertDeliveryJson = (d: AlertDeliveryRow) => ({
  id: d.delivery_id,
  type: d.kind,
  notification: d.notification,
  status: d.status,
  attempts: d.attempt_log.map((a) => ({
    attempt: a.attempt,
    at: new Date(a.at).toISOString(),
    status_code: a.status_code,
    error: a.error,
  })),
  next_attempt_at: d.status === 'pending' ? iso(d.next_attempt_at) : null,
  created_at: iso(d.created_at),
});
