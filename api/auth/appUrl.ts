import type Koa from 'koa';
import type { AppDeps } from '../appDeps.ts';

/**
 * The browser-facing base URL for links in mails: SERVICE_ROOT_URL (which includes any sub-path)
 * when set, else this request's origin plus the root path.
 */
export const appUrl = (ctx: Koa.Context, deps: AppDeps): string => deps.settings.auth.rootUrl ?? `${ctx.origin}${deps.settings.rootPath}`;
