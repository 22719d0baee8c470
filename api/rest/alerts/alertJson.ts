import { z } from 'zod';
import { isoTime } from '../../http/responseSchemas.ts';
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

/** `alertJson`'s shape (the condition and destinations as alertRuleJson.ts writes them). */
export const alertSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  name: z.string(),
  metric: z.string(),
  annotation_name: z.string().nullable(),
  annotation_label: z.string().nullable(),
  filter: z.string().nullable(),
  window_seconds: z.number(),
  evaluation_interval_seconds: z.number(),
  condition: z.record(z.string(), z.unknown()),
  no_data: z.string(),
  destinations: z.array(z.record(z.string(), z.unknown())),
  state: z.string(),
  state_since: isoTime.nullable(),
  last_value: z.number().nullable(),
  last_baseline: z.number().nullable(),
  last_evaluated_at: isoTime.nullable(),
  created_at: isoTime.nullable(),
  updated_at: isoTime.nullable(),
});

/** `alertTransitionJson`'s and `alertDeliveryJson`'s shapes: a rule's history. */
export const alertHistorySchema = z.object({
  transitions: z.array(
    z.object({
      from: z.string(),
      to: z.string(),
      value: z.number().nullable(),
      baseline: z.number().nullable(),
      window_start: isoTime.nullable(),
      window_end: isoTime.nullable(),
      at: isoTime.nullable(),
    }),
  ),
  deliveries: z.array(z.object({ id: z.string(), type: z.string(), status: z.string(), attempts: z.array(z.unknown()) })),
});

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
