import type { OAuth2Clients } from './oauth2Clients.ts';
import type { FlowCookieCodec } from './oauth2FlowCookie.ts';

/** What the OAuth2 routes need besides the settings: discovered providers and the flow cookie's signer (null without SERVICE_SECRET). */
export type OAuth2Services = {
  readonly clients: OAuth2Clients;
  readonly flowCookies: FlowCookieCodec | null;
};
