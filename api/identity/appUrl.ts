import type Koa from 'koa';
import type { AppDeps } from '../appDeps.ts';

/**
 * The browser-facing base URL for links in mails (password reset, welcome). Never taken from
 * the request's Host or X-Forwarded-Host unless the operator trusts a proxy to set them: anyone
 * can send those headers, and a reset link on their host would hand them the victim's token.
 * So: SERVICE_ROOT_URL (which includes any sub-path) when set; else, with SERVICE_TRUST_PROXY,
 * the scheme and host the proxy forwarded; else localhost on the port the request arrived at
 * (the socket's, not a header), which works on the machine itself and is warned about at start.
 * Not ctx.origin: in Koa 3 that is the request's Origin header.
 */
export const appUrl = (ctx: Koa.Context, deps: AppDeps): string =>
  appUrlOf({ protocol: ctx.protocol, host: ctx.host, localPort: ctx.req.socket.localPort }, deps);

/** The same from where the request came in (a REST handler's `origin`: Koa's protocol and host, the socket's port). */
export const appUrlOf = (
  origin: { readonly protocol: string; readonly host: string; readonly localPort: number | undefined },
  deps: AppDeps,
): string => {
  const { rootUrl, trustProxy } = deps.settings.auth;
  if (rootUrl !== null) return rootUrl;
  if (trustProxy) return `${origin.protocol}://${origin.host}${deps.settings.rootPath}`;
  return `http://localhost:${origin.localPort}${deps.settings.rootPath}`;
};
