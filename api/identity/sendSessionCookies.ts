import type Koa from 'koa';
import type { SessionTokens } from '../../domain/identity/events.ts';
import type { AppDeps } from '../appDeps.ts';
import { HttpError } from '../http/httpError.ts';
import { cookieOptions, setSessionCookies } from './authCookies.ts';

/** Sets the access and refresh cookies for a session the log has just recorded. */
export const sendSessionCookies = async (ctx: Koa.Context, deps: AppDeps, session: SessionTokens): Promise<void> => {
  const tokens = deps.identity.tokens;
  if (tokens === null) throw new HttpError(503, 'auth_not_configured', 'SERVICE_SECRET is not set');
  const { access, refresh } = deps.settings.auth.tokenExpiryMinutes;
  setSessionCookies(ctx, cookieOptions(deps.settings.rootPath, deps.settings.auth.secureCookies), {
    access: await tokens.sign('AccessToken', session.accessTokenId),
    accessSeconds: Math.round(access * 60),
    refresh: await tokens.sign('RefreshToken', session.refreshTokenId),
    refreshSeconds: Math.round(refresh * 60),
  });
};
