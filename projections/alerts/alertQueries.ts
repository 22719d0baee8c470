import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { AlertRule, AlertState } from '../../domain/alerts/alertRule.ts';

const alertRow = z.object({
  alert_id: z.string(),
  project_id: z.string(),
  name: z.string(),
  rule: z.custom<AlertRule>((v) => typeof v === 'object' && v !== null),
  state: z.enum(['OK', 'FIRING', 'NO_DATA']),
  // timestamptz arrive as epoch milliseconds (the pool's type parsers)
  state_since: z.number(),
  created_at: z.number(),
  updated_at: z.number(),
  evaluated_at: z.number().nullable(),
  value: z.number().nullable(),
  baseline: z.number().nullable(),
});

/** A rule with its state and its last evaluation (null before the first). */
export type AlertRow = z.infer<typeof alertRow> & { readonly state: AlertState };

const columns = sql.fragment`r.alert_id, r.project_id::text AS project_id, r.name, r.rule, r.state, r.state_since, r.created_at, r.updated_at,
  e.evaluated_at, e.value, e.baseline`;

/** A project's rules, oldest first. */
export const listAlertRules = (db: CommonQueryMethods, projectId: string): Promise<readonly AlertRow[]> =>
  db.any(sql.type(alertRow)`
    SELECT ${columns} FROM alert_rules r LEFT JOIN alert_evaluations e ON e.alert_id = r.alert_id
    WHERE r.project_id = ${projectId}::uuid ORDER BY r.ordinal`);

export const findAlertRule = (db: CommonQueryMethods, alertId: string): Promise<AlertRow | null> =>
  db.maybeOne(sql.type(alertRow)`
    SELECT ${columns} FROM alert_rules r LEFT JOIN alert_evaluations e ON e.alert_id = r.alert_id WHERE r.alert_id = ${alertId}`);

export const countAlertRules = (db: CommonQueryMethods, projectId: string): Promise<number> =>
  db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM alert_rules WHERE project_id = ${projectId}::uuid`);

/** Every rule of every project, with what the evaluator needs to know whether it is due. */
export const listRulesToEvaluate = (db: CommonQueryMethods): Promise<readonly AlertRow[]> =>
  db.any(sql.type(alertRow)`
    SELECT ${columns} FROM alert_rules r LEFT JOIN alert_evaluations e ON e.alert_id = r.alert_id ORDER BY r.ordinal`);

const transitionRow = z.object({
  from_state: z.string(),
  to_state: z.string(),
  value: z.number().nullable(),
  baseline: z.number().nullable(),
  window_start: z.number(),
  window_end: z.number(),
  at: z.number(),
});
export type AlertTransitionRow = z.infer<typeof transitionRow>;

/** A rule's transitions, newest first. */
export const alertTransitions = (db: CommonQueryMethods, alertId: string, limit: number): Promise<readonly AlertTransitionRow[]> =>
  db.any(sql.type(transitionRow)`
    SELECT from_state, to_state, value, baseline, window_start, window_end, at FROM alert_transitions
    WHERE alert_id = ${alertId} ORDER BY seq DESC LIMIT ${limit}`);

const deliveryRow = z.object({
  delivery_id: z.string(),
  kind: z.string(),
  notification: z.string(),
  status: z.string(),
  attempts: z.number(),
  next_attempt_at: z.number(),
  created_at: z.number(),
  attempt_log: z.array(z.object({ attempt: z.number(), at: z.string(), status_code: z.number().nullable(), error: z.string().nullable() })),
});
export type AlertDeliveryRow = z.infer<typeof deliveryRow>;

/** A rule's deliveries, newest first, each with its attempts. */
export const alertDeliveries = (db: CommonQueryMethods, alertId: string, limit: number): Promise<readonly AlertDeliveryRow[]> =>
  db.any(sql.type(deliveryRow)`
    SELECT d.delivery_id, d.kind, d.notification, d.status, d.attempts, d.next_attempt_at, d.created_at,
      coalesce((SELECT jsonb_agg(jsonb_build_object('attempt', a.attempt, 'at', a.at, 'status_code', a.status_code, 'error', a.error) ORDER BY a.attempt)
        FROM alert_delivery_attempts a WHERE a.delivery_id = d.delivery_id), '[]'::jsonb) AS attempt_log
    FROM alert_deliveries d WHERE d.alert_id = ${alertId} ORDER BY d.transition_seq DESC, d.destination LIMIT ${limit}`);
