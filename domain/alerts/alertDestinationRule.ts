import type { OutboundUrlRule } from '../base/outboundUrl.ts';

/** The setting that lists the non-public URLs alerts may still be sent to. */
export const ALERTS_ALLOWED_SETTING = 'SERVICE_ALERTS_ALLOWED_URLS';

/**
 * Where alert notifications may go, under the one outbound URL rule (domain/base/outboundUrl.ts):
 * a destination comes from any member, so only public addresses are reached, unless an operator
 * listed the URL (a prefix of it) in `SERVICE_ALERTS_ALLOWED_URLS` (an in-house receiver).
 */
export const alertDestinationRule = (allowedUrls: readonly string[]): OutboundUrlRule => ({
  allowed: allowedUrls,
  setting: ALERTS_ALLOWED_SETTING,
  unlisted: 'public-only',
});
