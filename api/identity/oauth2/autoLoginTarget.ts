import type Koa from 'koa';
import type { AppDeps } from '../../appDeps.ts';

/**
 * Where a request for the login page goes instead, as in the reference: with password sign-in
 * off and a provider marked `SERVICE_OAUTH2_<IDP>_AUTO_LOGIN`, `GET /login` is a 307 to that
 * provider's `/oauth2/<idp>/login` with the query kept (so `returnUrl` survives). Null = serve
 * the page. A failed sign-in (`?error=`) shows its message on the page instead of going straight
 * back to the provider, which would loop. The page does the same for in-app navigation.
 */
export const autoLoginTarget = (deps: AppDeps, ctx: Koa.Context): string | null => {
  const auth = deps.settings.auth;
  if (!auth.enabled || !auth.disableBasicAuth || ctx.query.error !== undefined) return null;
  const provider = auth.oauth2Providers?.find((p) => p.autoLogin);
  return provider === undefined ? null : `${deps.settings.rootPath}/oauth2/${provider.name}/login${ctx.search}`;
};
