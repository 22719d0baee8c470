import type { Migration } from '../../domain/eventstore/migration.ts';

/**
 * The alert reactors' own rows (not read models of the log, so a rebuild leaves them alone):
 * - `alert_evaluations`: each rule's last evaluation (when, the value, the baseline), which the
 *   list shows and the evaluator reads to know when a rule is due. An evaluation that changes
 *   nothing is not an event: a thousand rules every minute would fill the log with "still OK".
 * - `alert_deliveries`: one row per transition and destination, created exactly once with the
 *   delivery reactor's checkpoint; its state, attempts and next attempt. A Slack row keeps its
 *   host in `url` and its URL (Slack's credential) sealed in `secret`; rows made before Slack URLs
 *   were sealed have the URL in `url` and no `secret`.
 * - `alert_delivery_attempts`: every attempt (status or error), for the rule's page.
 */
export const alertReactorMigrations: readonly Migration[] = [
  {
    id: 'alerts/reactors_0001',
    sql: `
      CREATE TABLE alert_evaluations (
        alert_id text PRIMARY KEY,
        evaluated_at timestamptz NOT NULL,
        value float8,
        baseline float8
      );
      CREATE TABLE alert_deliveries (
        delivery_id text PRIMARY KEY,
        alert_id text NOT NULL,
        -- the AlertStateChanged event's global position and the destination's index in the rule
        transition_seq bigint NOT NULL,
        destination integer NOT NULL,
        kind text NOT NULL,
        -- where to, and the webhook's secret sealed as the rule held it (domain/alerts/sealDestinations.ts)
        url text NOT NULL,
        secret jsonb,
        -- FIRING or RESOLVED, and the body's exact bytes as signed and sent (no secret in it)
        notification text NOT NULL,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        give_up_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (transition_seq, destination)
      );
      CREATE INDEX alert_deliveries_due ON alert_deliveries (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX alert_deliveries_alert ON alert_deliveries (alert_id, transition_seq);
      CREATE TABLE alert_delivery_attempts (
        delivery_id text NOT NULL,
        attempt integer NOT NULL,
        at timestamptz NOT NULL,
        status_code integer,
        error text,
        PRIMARY KEY (delivery_id, attempt)
      );
    `,
  },
];
