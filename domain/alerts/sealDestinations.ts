import { decryptSecret, encryptSecret, type SecretKeyring } from '../secrets/crypto.ts';
import type { AlertRule, SealedDestination } from './alertRule.ts';
import { alertRuleInvalid, type AlertRuleInput } from './alertRuleInput.ts';

/** What a webhook secret is bound to: a sealed secret copied to another rule no longer opens. */
const sealContext = (alertId: string): string => `alert:${alertId}`;

/**
 * A checked rule with its webhook secrets sealed (AES-256-GCM under the server's keyring), so no
 * event, row or log line holds one in plaintext. A webhook sent without a secret on a change keeps
 * the secret stored for the same URL; a new webhook must bring one.
 */
export const sealDestinations = (keyring: SecretKeyring, alertId: string, input: AlertRuleInput, stored?: AlertRule): AlertRule => ({
  ...input,
  destinations: input.destinations.map((d, i): SealedDestination => {
    if (d.type === 'slack') return d;
    if (d.secret !== null) return { type: 'webhook', url: d.url, secret: encryptSecret(keyring, d.secret, sealContext(alertId)) };
    const kept = stored?.destinations.find((s) => s.type === 'webhook' && s.url === d.url);
    if (kept === undefined || kept.type !== 'webhook') throw alertRuleInvalid(`destinations.${i}.secret`, 'is required for a webhook');
    return kept;
  }),
});

/** A webhook's secret for signing, at send time only. */
export const openWebhookSecret = (
  keyring: SecretKeyring,
  alertId: string,
  destination: Extract<SealedDestination, { type: 'webhook' }>,
): string => decryptSecret(keyring, destination.secret, sealContext(alertId));
