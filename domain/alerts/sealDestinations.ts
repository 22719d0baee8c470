import { decryptSecret, encryptSecret, type SecretKeyring } from '../secrets/crypto.ts';
import type { AlertRule, SealedDestination } from './alertRule.ts';
import { alertRuleInvalid, type AlertRuleInput } from './alertRuleInput.ts';

type SlackDestination = Extract<SealedDestination, { type: 'slack' }>;
type WebhookDestination = Extract<SealedDestination, { type: 'webhook' }>;

/** What a sealed value is bound to: one copied to another rule (or from a secret to a URL) no longer opens. */
const sealContext = (alertId: string): string => `alert:${alertId}`;
const slackUrlContext = (alertId: string): string => `alert:${alertId}:slack-url`;

/** A Slack URL sealed, with its host (`hooks.slack.com`) in clear: where it goes, never its path. */
export const sealSlackUrl = (keyring: SecretKeyring, alertId: string, url: string): Extract<SlackDestination, { sealedUrl: unknown }> => ({
  type: 'slack',
  host: new URL(url).host,
  sealedUrl: encryptSecret(keyring, url, slackUrlContext(alertId)),
});

/** The host a Slack destination posts to, from the sealed shape or an old event's plaintext URL. */
export const slackHost = (destination: SlackDestination): string =>
  'sealedUrl' in destination ? destination.host : new URL(destination.url).host;

/**
 * A checked rule with its credentials sealed (AES-256-GCM under the server's keyring), so no
 * event, row or log line holds one in plaintext: a webhook's secret and a Slack incoming-webhook
 * URL. A webhook sent without a secret on a change keeps the secret stored for the same URL; a
 * Slack destination sent without a URL keeps the URL stored for the Slack destination in the same
 * place among the rule's Slack destinations (a rule read from the API and sent back keeps them; an
 * old event's plaintext URL is sealed now). A new webhook must bring its secret, a new Slack
 * destination its URL.
 */
export const sealDestinations = (keyring: SecretKeyring, alertId: string, input: AlertRuleInput, stored?: AlertRule): AlertRule => {
  const storedSlack = (stored?.destinations ?? []).filter((s): s is SlackDestination => s.type === 'slack');
  let slackIndex = 0;
  return {
    ...input,
    destinations: input.destinations.map((d, i): SealedDestination => {
      if (d.type === 'slack') {
        const kept = storedSlack[slackIndex++];
        if (d.url !== null) return sealSlackUrl(keyring, alertId, d.url);
        if (kept === undefined) throw alertRuleInvalid(`destinations.${i}.url`, 'is required for a new Slack destination');
        return 'sealedUrl' in kept ? kept : sealSlackUrl(keyring, alertId, kept.url);
      }
      if (d.secret !== null) return { type: 'webhook', url: d.url, secret: encryptSecret(keyring, d.secret, sealContext(alertId)) };
      const kept = stored?.destinations.find((s): s is WebhookDestination => s.type === 'webhook' && s.url === d.url);
      if (kept === undefined) throw alertRuleInvalid(`destinations.${i}.secret`, 'is required for a webhook');
      return kept;
    }),
  };
};

/** A webhook's secret for signing, at send time only. */
export const openWebhookSecret = (keyring: SecretKeyring, alertId: string, destination: WebhookDestination): string =>
  decryptSecret(keyring, destination.secret, sealContext(alertId));

/** A Slack destination's URL, at send time only (an old event's plaintext URL as it is). */
export const openSlackUrl = (keyring: SecretKeyring, alertId: string, destination: SlackDestination): string =>
  'sealedUrl' in destination ? decryptSecret(keyring, destination.sealedUrl, slackUrlContext(alertId)) : destination.url;
