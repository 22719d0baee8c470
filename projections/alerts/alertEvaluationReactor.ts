import { sql, type DatabasePool } from 'slonik';
import { changeAlert } from '../../domain/alerts/alertCommands.ts';
import { evaluationWindows, isDue } from '../../domain/alerts/alertSchedule.ts';
import { alertVerdict } from '../../domain/alerts/alertVerdict.ts';
import type { RecordAlertState } from '../../domain/alerts/commands.ts';
import type { EventStore } from '../../domain/eventstore/types.ts';
import { windowMetric } from '../metrics/windowMetric.ts';
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
}): Reactor<AlertEvaluated> => ({
  name: 'alert-evaluator',
  schedule: {
    everyMs: deps.tickMs,
    react: async ({ db, now }) => {
      const out: AlertEvaluated[] = [];
      for (const row of await listRulesToEvaluate(db)) {
        if (!isDue(row.rule, row.evaluated_at, now.getTime())) continue;
        const windows = evaluationWindows(row.rule, now.getTime());
        const query = { projectId: row.project_id, ...row.rule };
        const value = await windowMetric(db, { ...query, start: windows.start, end: windows.end });
        const baseline = windows.baseline === null ? null : await windowMetric(db, { ...query, ...windows.baseline });
        const to = alertVerdict(row.rule, row.state, { value, baseline });
        out.push({
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
      return out;
    },
  },
  async issue(e) {
    await deps.pool.query(sql.unsafe`
      INSERT INTO alert_evaluations (alert_id, evaluated_at, value, baseline) VALUES (${e.alertId}, ${e.evaluatedAt}, ${e.value}, ${e.baseline})
      ON CONFLICT (alert_id) DO UPDATE SET evaluated_at = EXCLUDED.evaluated_at, value = EXCLUDED.value, baseline = EXCLUDED.baseline`);
    if (e.transition !== null) await changeAlert(deps.store, e.transition, { actor: ALERT_EVALUATOR_ACTOR, requestId: null });
  },
});
