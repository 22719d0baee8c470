import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type AlertSender, DELIVERY_TIMEOUT_MS } from '../../domain/alerts/alertNotification.ts';
import { isAllowedUrl, resolvedAddressProblem } from '../../domain/alerts/destinationAddress.ts';

const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return '<url>';
  }
};

/**
 * Alert notifications over HTTP (the AlertSender port): one POST, no redirect followed (a 3xx is
 * an answer, not a new destination), bounded by DELIVERY_TIMEOUT_MS. A name is resolved first and
 * refused when it points at a loopback, private or link-local address the operator did not allow
 * (`SERVICE_ALERTS_ALLOWED_URLS`; the rule itself is domain/alerts/destinationAddress.ts).
 */
export const createAlertSender =
  (allowedUrls: readonly string[]): AlertSender =>
  async ({ url, body, headers }) => {
    try {
      if (!isAllowedUrl(url, allowedUrls)) {
        const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
        const addresses = isIP(host) !== 0 ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
        const problem = resolvedAddressProblem(url, addresses, allowedUrls);
        if (problem !== null) return { refused: problem };
      }
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
