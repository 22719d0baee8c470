import { refreshTokenOwner } from '../../projections/identity/authState.ts';
import { handleUserCommand } from '../../domain/identity/handleUserCommand.ts';
import type { AppDeps } from '../appDeps.ts';
import { commandContextOf } from '../http/commandContextOf.ts';
import { HttpError } from '../http/httpError.ts';
import type { RouteDef } from '../http/route.ts';
import { readYourWrites } from '../http/readYourWrites.ts';
import { SIGN_IN_SETTLE_MS } from './signInSettleMs.ts';
import { readCookie, REFRESH_COOKIE } from './authCookies.ts';
import { newSessionTokens } from './newSessionTokens.ts';
import { sendSessionCookies } from './sendSessionCookies.ts';
import { catchUpWith } from './catchUpWith.ts';

/**
 * `POST /auth/refresh`: trades the refresh cookie for a new pair. Single use: the user's stream
 * records the consumption, so a second use (here or in another process) is refused, and the old
 * access token ends with it.
 */
export const refreshRoute = (deps: AppDeps): RouteDef => ({
  method: 'POST',
  path: '/auth/refresh',
  permission: 'public',
  body: 'none',
  handler: async (ctx) => {
    const cookie = readCookie(ctx, REFRESH_COOKIE);
    if (cookie === null) throw new HttpError(401, 'missing_refresh_token', 'Missing refresh token');
    const claims = deps.identity.tokens === null ? null : await deps.identity.tokens.read(cookie);
    if (claims === null || claims.kind !== 'RefreshToken') throw new HttpError(401, 'invalid_refresh_token', 'Invalid refresh token');
    const userId = await catchUpWith(deps, () => refreshTokenOwner(deps.identity.state, claims.id));
    if (userId === null) throw new HttpError(401, 'invalid_refresh_token', 'Invalid refresh token');
    const now = deps.identity.now();
    const next = newSessionTokens(now, deps.settings.auth.tokenExpiryMinutes);
    const result = await handleUserCommand(
      deps.store,
      { type: 'RefreshSession', userId, refreshTokenId: claims.id, next, now: now.toISOString() },
      commandContextOf(ctx),
    );
    await readYourWrites(deps.runner)(result.position, { timeoutMs: SIGN_IN_SETTLE_MS });
    await sendSessionCookies(ctx, deps, next);
    ctx.status = 204;
  },
});
