import type { OutboundUrlRule } from '../base/outboundUrl.ts';

/** The setting that lists the base URLs the playground may call. */
export const PLAYGROUND_ALLOWED_SETTING = 'SERVICE_PLAYGROUND_ALLOWED_BASE_URLS';

/**
 * Which base URLs a playground call may go to, under the one outbound URL rule
 * (domain/base/outboundUrl.ts): with the operator's list set, only URLs under it; without, anything
 * but link-local and cloud metadata addresses (a self-hosted model on localhost or the LAN is what
 * the playground is for).
 */
export const playgroundUrlRule = (allowedBaseUrls: readonly string[]): OutboundUrlRule => ({
  allowed: allowedBaseUrls,
  setting: PLAYGROUND_ALLOWED_SETTING,
  unlisted: allowedBaseUrls.length > 0 ? 'listed-only' : 'no-metadata',
});
