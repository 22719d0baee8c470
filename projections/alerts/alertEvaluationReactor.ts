import { sql, type DatabasePool } from 'slonik';
import { changeAlert } from '../../domain/alerts/alertCommands.ts';
import { evaluationWindows, isDue } from '../../domain/alerts/alertSchedule.ts';
import { alertVerdict } from '../../domain/alerts/alertVerdict.ts';
import type { RecordAlertState } from '../../domain/alerts/commands.ts';
import type { EventStore } from '../../domain/eventstore/types.ts';
import { annotationWindowValue, measureTraceWindows, traceMetricValue, traceWindowKey } from '../metrics/windowMetric.ts';
import type { Reactor } from '../reactors/reactor.ts';
import { listRulesToEvaluate } from './alertQueries.ts';

/** One rule evaluated: what was measured (kept for the list) and, when it moves the rule, the transition to record. */
export type AlertEvaluated = {
  readonly alertId: string;
  readonly evaluatedAt: string;
  readonly value: number | null;
  readonly baseline: number | null;
  readonly transition: RecordAlertState | null;
};

/** A tick's evaluations, issued together (one upsert of the last evaluations, then the transitions). */
export type EvaluateAlerts = { readonly evaluations: readonly AlertEvaluated[] };

/** Who records a transition in the log (the audit trail's actor). */
export const ALERT_EVALUATOR_ACTOR = 'alerts:evaluator';

/**
 * Evaluates every rule that is due (its `evaluation_interval_seconds` since its last evaluation)
 * on the metric of its window, and records a transition when the verdict (domain/alerts/
 * alertVerdict.ts, pure) moves it to another state. One process among replicas runs it (the
 * reactor's lease), so each rule has one evaluator. The schedule ticks every `tickMs`; a rule's
 * own interval decides whether a tick evaluates it.
 *
 * Issuing is idempotent: the last evaluation is an upsert, and a transition the rule is already in
 * is refused by its decider (nothing appended), so a tick repeated after a crash changes nothing.
 */
export const alertEvaluationReactor = (deps: {
  readonly store: EventStore;
  readonly pool: DatabasePool;
  readonly tickMs: number;
}): Reactor<EvaluateAlerts> => ({
  name: 'alert-evaluator',
  schedule: {
    everyMs: deps.tickMs,
    react: async ({ db, now }) => {
      const due = (await listRulesToEvaluate(db))
        .filter((row) => isDue(row.rule, row.evaluated_at, now.getTime()))
        .map((row) => ({ row, windows: evaluationWindows(row.rule, now.getTime()) }));
      // Every trace window the due rules watch, measured once (rules on one project and window share it).
      const traceWindows = due.flatMap(({ row, windows }) =>
        row.rule.metric === 'annotation_score'
          ? []
          : [windows, ...(windows.baseline === null ? [] : [windows.baseline])].map((w) => ({
              projectId: row.project_id,
              filter: row.rule.filter,
              start: w.start,
              end: w.end,
            })),
      );
      const measured = await measureTraceWindows(db, traceWindows);
      const windowValue = async (row: (typeof due)[number]['row'], w: { start: string; end: string }): Promise<number | null> => {
        const { rule } = row;
        if (rule.metric === 'annotation_score')
          return annotationWindowValue(db, {
            projectId: row.project_id,
            ...w,
            name: rule.annotationName ?? '',
            label: rule.annotationLabel,
          });
        return traceMetricValue(measured.get(traceWindowKey({ projectId: row.project_id, filter: rule.filter, ...w }))!, rule.metric);
      };
      const evaluations: AlertEvaluated[] = [];
      for (const { row, windows } of due) {
        const value = await windowValue(row, windows);
        const baseline = windows.baseline === null ? null : await windowValue(row, windows.baseline);
        const to = alertVerdict(row.rule, row.state, { value, baseline });
        evaluations.push({
          alertId: row.alert_id,
          evaluatedAt: now.toISOString(),
          value,
          baseline,
          transition:
            to === row.state
              ? null
              : {
                  type: 'RecordAlertState',
                  alertId: row.alert_id,
                  to,
                  value,
                  baseline,
                  windowStart: windows.start,
                  windowEnd: windows.end,
                },
        });
      }
      return evaluations.length === 0 ? [] : [{ evaluations }];
    },
  },
  async issue({ evaluations }) {
    await deps.pool.query(sql.unsafe`
      INSERT INTO alert_evaluations (alert_id, evaluated_at, value, baseline)
      SELECT alert_id, evaluated_at, value, baseline
      FROM jsonb_to_recordset(${sql.jsonb(evaluations.map(({ alertId, evaluatedAt, value, baseline }) => ({ alert_id: alertId, evaluated_at: evaluatedAt, value, baseline })))})
        AS e(alert_id text, evaluated_at timestamptz, value float8, baseline float8)
      ON CONFLICT (alert_id) DO UPDATE SET evaluated_at = EXCLUDED.evaluated_at, value = EXCLUDED.value, baseline = EXCLUDED.baseline`);
    for (const e of evaluations)
      if (e.transition !== null) await changeAlert(deps.store, e.transition, { actor: ALERT_EVALUATOR_ACTOR, requestId: null });
  },
});
