import type Koa from 'koa';
import type { AppDeps } from '../appDeps.ts';

/**
 * The browser-facing base URL for links in mails: SERVICE_ROOT_URL (which includes any sub-path)
 * when set, else this request's scheme and host plus the root path (not ctx.origin: in Koa 3
 * that is the request's Origin header).
 */
export const appUrl = (ctx: Koa.Context, deps: AppDeps): string =>
  deps.settings.auth.rootUrl ?? `${ctx.protocol}://${ctx.host}${deps.settings.rootPath}`;
