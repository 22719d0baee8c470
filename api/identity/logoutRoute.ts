import { refreshTokenOwner } from '../../projections/identity/authState.ts';
import { handleUserCommand } from '../../domain/identity/handleUserCommand.ts';
import type { AppDeps } from '../appDeps.ts';
import { commandContextOf, principalOf } from '../http/commandContextOf.ts';
import type { RouteDef } from '../http/route.ts';
import { clearSessionCookies, cookieOptions, readCookie, REFRESH_COOKIE } from './authCookies.ts';
import { settleAuthChange } from '../http/settleAuthChange.ts';

/**
 * `GET /auth/logout`: ends every session of the user (all browsers), whoever they are known as
 * (access cookie, bearer, or just a refresh cookie), clears the cookies and sends the browser to
 * the login page. Works without credentials too.
 */
export const logoutRoute = (deps: AppDeps): RouteDef => ({
  method: 'GET',
  path: '/auth/logout',
  permission: 'public',
  handler: async (ctx) => {
    const principal = principalOf(ctx);
    let userId = principal !== null && principal.kind !== 'anonymous' ? principal.userId : null;
    if (userId === null && deps.identity.tokens !== null) {
      const refresh = readCookie(ctx, REFRESH_COOKIE);
      const claims = refresh === null ? null : await deps.identity.tokens.read(refresh);
      if (claims?.kind === 'RefreshToken') userId = refreshTokenOwner(deps.identity.state, claims.id);
    }
    if (userId !== null) {
      const result = await handleUserCommand(
        deps.store,
        { type: 'LogOut', userId, now: deps.identity.now().toISOString() },
        commandContextOf(ctx),
      );
      await settleAuthChange(deps, result.position);
    }
    clearSessionCookies(ctx, cookieOptions(deps.settings.rootPath, deps.settings.auth.secureCookies));
    ctx.redirect(`${deps.settings.rootPath}${deps.settings.auth.disableBasicAuth ? '/logout' : '/login'}`);
  },
});
