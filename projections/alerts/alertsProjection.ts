import { sql } from 'slonik';
import { loupeEvent } from '../../domain/loupeEvent.ts';
import type { Projection } from '../projection.ts';

/**
 * A project's alert rules (`alert_rules`: the rule as the log holds it, webhook secrets sealed,
 * with its state and when it entered it) and each rule's transitions (`alert_transitions`: the
 * history its page shows). Rules and history go with their rule and their project.
 */
export const alertsProjection: Projection = {
  name: 'alerts',
  tables: ['alert_rules', 'alert_transitions'],
  eventTypes: ['AlertRuleCreated', 'AlertRuleChanged', 'AlertRuleDeleted', 'AlertStateChanged', 'ProjectDeleted'],
  migrations: [
    {
      id: 'alerts/0001_alert_rules',
      sql: `
        CREATE TABLE alert_rules (
          alert_id text PRIMARY KEY,
          project_id uuid NOT NULL,
          name text NOT NULL,
          -- the rule as the log holds it (domain/alerts/alertRule.ts): destinations' secrets sealed
          rule jsonb NOT NULL,
          state text NOT NULL,
          state_since timestamptz NOT NULL,
          created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL,
          -- global position of the creation: the list's order
          ordinal bigint NOT NULL
        );
        CREATE INDEX alert_rules_project ON alert_rules (project_id, ordinal);
        CREATE TABLE alert_transitions (
          seq bigint PRIMARY KEY,
          alert_id text NOT NULL,
          from_state text NOT NULL,
          to_state text NOT NULL,
          value float8,
          baseline float8,
          window_start timestamptz NOT NULL,
          window_end timestamptz NOT NULL,
          at timestamptz NOT NULL
        );
        CREATE INDEX alert_transitions_alert ON alert_transitions (alert_id, seq);
      `,
    },
  ],
  apply: async (tx, events) => {
    for (const stored of events) {
      const event = loupeEvent(stored);
      const at = stored.metadata.time;
      switch (event.type) {
        case 'AlertRuleCreated': {
          const d = event.data;
          await tx.query(sql.unsafe`
            INSERT INTO alert_rules (alert_id, project_id, name, rule, state, state_since, created_at, updated_at, ordinal)
            VALUES (${d.alertId}, ${d.projectId}::uuid, ${d.rule.name}, ${sql.jsonb(d.rule)}, 'NO_DATA', ${at}, ${at}, ${at}, ${stored.position.seq})
            ON CONFLICT (alert_id) DO NOTHING`);
          break;
        }
        case 'AlertRuleChanged':
          await tx.query(sql.unsafe`
            UPDATE alert_rules SET name = ${event.data.rule.name}, rule = ${sql.jsonb(event.data.rule)}, updated_at = ${at}
            WHERE alert_id = ${event.data.alertId}`);
          break;
        case 'AlertRuleDeleted':
          await tx.query(sql.unsafe`DELETE FROM alert_rules WHERE alert_id = ${event.data.alertId}`);
          await tx.query(sql.unsafe`DELETE FROM alert_transitions WHERE alert_id = ${event.data.alertId}`);
          break;
        case 'AlertStateChanged': {
          const d = event.data;
          await tx.query(sql.unsafe`
            UPDATE alert_rules SET state = ${d.to}, state_since = ${at} WHERE alert_id = ${d.alertId}`);
          await tx.query(sql.unsafe`
            INSERT INTO alert_transitions (seq, alert_id, from_state, to_state, value, baseline, window_start, window_end, at)
            SELECT ${stored.position.seq}, ${d.alertId}, ${d.from}, ${d.to}, ${d.value}, ${d.baseline}, ${d.windowStart}, ${d.windowEnd}, ${at}
            WHERE EXISTS (SELECT 1 FROM alert_rules WHERE alert_id = ${d.alertId})
            ON CONFLICT (seq) DO NOTHING`);
          break;
        }
        case 'ProjectDeleted':
          await tx.query(sql.unsafe`
            DELETE FROM alert_transitions WHERE alert_id IN (SELECT alert_id FROM alert_rules WHERE project_id = ${event.data.projectId}::uuid)`);
          await tx.query(sql.unsafe`DELETE FROM alert_rules WHERE project_id = ${event.data.projectId}::uuid`);
          break;
      }
    }
  },
};
