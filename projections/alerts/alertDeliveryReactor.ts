import { sql, type DatabasePool, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import {
  type AlertSender,
  attemptVerdict,
  DELIVERY_GIVE_UP_MS,
  DELIVERY_TIMEOUT_MS,
  retryDelayMs,
  slackBody,
  webhookBody,
  webhookSignature,
} from '../../domain/alerts/alertNotification.ts';
import type { AlertRule } from '../../domain/alerts/alertRule.ts';
import { notificationOf } from '../../domain/alerts/alertVerdict.ts';
import { openSlackUrl, openWebhookSecret, sealSlackUrl, slackHost } from '../../domain/alerts/sealDestinations.ts';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { isEventOf } from '../../domain/loupeEvent.ts';
import type { EncryptedValue, SecretKeyring } from '../../domain/secrets/crypto.ts';
import type { BackgroundJob } from '../reactors/reactor.ts';

/** The deliveries due at a tick, attempted together (one slow receiver does not hold the others back). */
export type AttemptDeliveries = { readonly deliveries: readonly { readonly id: string; readonly attempts: number }[] };

export type AlertDeliveryDeps = {
  readonly pool: DatabasePool;
  readonly keyring: SecretKeyring;
  readonly send: AlertSender;
  /** The UI's page of a project, absolute (the link in every notification). */
  readonly projectLink: (projectRowid: number) => string;
  readonly tickMs: number;
  readonly now?: () => Date;
};

const ruleRow = z.object({ rule: z.custom<AlertRule>(), project_name: z.string(), project_rowid: z.bigint().transform(Number) });
const due = z.object({ delivery_id: z.string(), attempts: z.number() });
const claimed = z.object({
  alert_id: z.string(),
  kind: z.string(),
  url: z.string(),
  secret: z.custom<EncryptedValue>().nullable(),
  body: z.string(),
  attempts: z.number(),
  give_up_at: z.number(),
});

/** One row per transition that notifies (into FIRING, out of it) and destination, made once with the checkpoint. */
const recordDeliveries = async (tx: DatabaseTransactionConnection, events: readonly StoredEvent[], deps: AlertDeliveryDeps) => {
  for (const stored of events) {
    if (isEventOf(stored, ['AlertRuleDeleted'])) {
      await tx.query(
        sql.unsafe`UPDATE alert_deliveries SET status = 'cancelled' WHERE alert_id = ${stored.data.alertId} AND status = 'pending'`,
      );
      // The rule's last evaluation goes with it (the evaluator's row, which no read model holds).
      await tx.query(sql.unsafe`DELETE FROM alert_evaluations WHERE alert_id = ${stored.data.alertId}`);
      continue;
    }
    if (!isEventOf(stored, ['AlertStateChanged'])) continue;
    const t = stored.data;
    const state = notificationOf(t.from, t.to);
    if (state === null) continue;
    const found = await tx.maybeOne(sql.type(ruleRow)`
      SELECT r.rule, p.name AS project_name, p.id AS project_rowid FROM alert_rules r JOIN projects p ON p.project_id = r.project_id
      WHERE r.alert_id = ${t.alertId}`);
    if (found === null) continue; // deleted since: it sends nothing more
    const notice = {
      alertId: t.alertId,
      rule: found.rule,
      projectName: found.project_name,
      state,
      transition: t,
      link: deps.projectLink(found.project_rowid),
    };
    const at = stored.metadata.time;
    const giveUp = new Date(Date.parse(at) + DELIVERY_GIVE_UP_MS).toISOString();
    for (const [i, d] of found.rule.destinations.entries()) {
      // A webhook: its URL and its sealed secret. Slack: its host only, and its URL sealed in `secret`
      // (the URL is Slack's credential; an old rule's plaintext URL is sealed here).
      const url = d.type === 'webhook' ? d.url : slackHost(d);
      const secret =
        d.type === 'webhook' ? d.secret : 'sealedUrl' in d ? d.sealedUrl : sealSlackUrl(deps.keyring, t.alertId, d.url).sealedUrl;
      await tx.query(sql.unsafe`
        INSERT INTO alert_deliveries (delivery_id, alert_id, transition_seq, destination, kind, url, secret, notification, body, next_attempt_at, give_up_at, created_at)
        VALUES (${`${t.alertId}.${stored.position.seq}.${i}`}, ${t.alertId}, ${stored.position.seq}, ${i}, ${d.type}, ${url},
          ${sql.jsonb(secret)}, ${state}, ${d.type === 'webhook' ? webhookBody(notice) : slackBody(notice)},
          ${at}, ${giveUp}, ${at})
        ON CONFLICT (transition_seq, destination) DO NOTHING`);
    }
  }
};

/**
 * Sends each notification of a transition to each of the rule's destinations: a webhook's JSON
 * signed with `x-loupe-signature`, Slack's incoming-webhook message, each with `x-loupe-delivery`.
 *
 * The rows are made once, in the transaction that moves the reactor's checkpoint past the
 * transition (`record`), so a restart or a takeover never makes a second one. Attempts run on the
 * reactor's schedule: a delivery is claimed (its attempt counted and its next attempt pushed past
 * the timeout) before it is sent, so two ticks never send it together; a 5xx, a timeout or a
 * network error is tried again, 1 s doubling up to 5 minutes, for 15 minutes; every attempt is
 * kept (`alert_delivery_attempts`, on the rule's history). A process that dies between sending and
 * recording sends that delivery again after its pause, with the same delivery id for the receiver
 * to recognise. A rule deleted meanwhile sends nothing more.
 */
export const alertDeliveryReactor = (deps: AlertDeliveryDeps): BackgroundJob<AttemptDeliveries> => {
  const now = deps.now ?? (() => new Date());
  const attempt = async ({ id, attempts }: { id: string; attempts: number }): Promise<void> => {
    const at = now();
    const row = await deps.pool.maybeOne(sql.type(claimed)`
      UPDATE alert_deliveries d SET attempts = attempts + 1,
        next_attempt_at = ${new Date(at.getTime() + DELIVERY_TIMEOUT_MS + retryDelayMs(attempts + 1)).toISOString()}
      WHERE delivery_id = ${id} AND status = 'pending' AND attempts = ${attempts}
        AND EXISTS (SELECT 1 FROM alert_rules r WHERE r.alert_id = d.alert_id)
      RETURNING alert_id, kind, url, secret, body, attempts, give_up_at`);
    if (row === null) return; // taken by another tick, delivered, or its rule is gone
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-loupe-delivery': id, 'user-agent': 'loupe-alerts' };
    if (row.kind === 'webhook' && row.secret !== null)
      headers['x-loupe-signature'] = webhookSignature(
        row.body,
        openWebhookSecret(deps.keyring, row.alert_id, { type: 'webhook', url: row.url, secret: row.secret }),
      );
    // Slack's URL is opened here only, for the call (a row made before Slack URLs were sealed holds it in `url`).
    const url =
      row.kind === 'slack' && row.secret !== null
        ? openSlackUrl(deps.keyring, row.alert_id, { type: 'slack', host: row.url, sealedUrl: row.secret })
        : row.url;
    const outcome = await deps.send({ url, body: row.body, headers });
    const verdict = attemptVerdict(outcome);
    const done = now();
    const next = done.getTime() + retryDelayMs(row.attempts);
    const status = verdict === 'retry' ? (next > row.give_up_at ? 'failed' : 'pending') : verdict;
    await deps.pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`
        INSERT INTO alert_delivery_attempts (delivery_id, attempt, at, status_code, error)
        VALUES (${id}, ${row.attempts}, ${done.toISOString()}, ${'status' in outcome ? outcome.status : null},
          ${'error' in outcome ? outcome.error : 'refused' in outcome ? outcome.refused : null})
        ON CONFLICT DO NOTHING`);
      await tx.query(sql.unsafe`
        UPDATE alert_deliveries SET status = ${status}, next_attempt_at = ${new Date(next).toISOString()}
        WHERE delivery_id = ${id} AND attempts = ${row.attempts}`);
    });
  };
  return {
    name: 'alert-delivery',
    // It appends nothing (its rows and attempts are tables of its own): a background job, on a lane of its own.
    kind: 'background-job',
    eventTypes: ['AlertStateChanged', 'AlertRuleDeleted'],
    afterReadModels: true,
    record: (tx, events) => recordDeliveries(tx, events, deps),
    schedule: {
      everyMs: deps.tickMs,
      react: async ({ db, now }) => {
        const rows = await db.any(sql.type(due)`
          SELECT delivery_id, attempts FROM alert_deliveries WHERE status = 'pending' AND next_attempt_at <= ${now.toISOString()}
          ORDER BY next_attempt_at LIMIT 100`);
        return rows.length === 0 ? [] : [{ deliveries: rows.map((r) => ({ id: r.delivery_id, attempts: r.attempts })) }];
      },
    },
    async issue(command) {
      await Promise.all(command.deliveries.map(attempt));
    },
  };
};
