import { alertDestinationRule } from '../../domain/alerts/alertDestinationRule.ts';
import { type AlertSender, DELIVERY_TIMEOUT_MS } from '../../domain/alerts/alertNotification.ts';
import { checkOutboundUrl } from './outboundUrlRule.ts';

const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return '<url>';
  }
};

/**
 * Alert notifications over HTTP (the AlertSender port): one POST, no redirect followed (a 3xx is
 * an answer, not a new destination), bounded by DELIVERY_TIMEOUT_MS. The outbound URL rule is
 * checked again here, with the name resolved now (domain/alerts/alertDestinationRule.ts): a public
 * name may since point at a loopback, private or link-local address the operator did not allow.
 */
export const createAlertSender = (allowedUrls: readonly string[]): AlertSender => {
  const rule = alertDestinationRule(allowedUrls);
  return async ({ url, body, headers }) => {
    try {
      const refusal = await checkOutboundUrl(url, rule, 'destination');
      // Why, without the URL: the refusal is kept in the rule's history, and a Slack URL is a credential.
      if (refusal !== null) return { refused: refusal.why };
      const response = await fetch(url, {
        method: 'POST',
        body,
        headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      await response.body?.cancel();
      return { status: response.status };
    } catch (error) {
      const message =
        error instanceof Error
          ? error.cause instanceof Error
            ? `${error.message}: ${error.cause.message}`
            : error.message
          : String(error);
      // The error is kept and shown in the rule's history: never with the URL's path (a Slack URL is a credential).
      return { error: message.split(url).join(originOf(url)) };
    }
  };
};
