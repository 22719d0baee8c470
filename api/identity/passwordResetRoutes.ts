import { z } from 'zod';
import { resetTokenOwner } from '../../projections/identity/authState.ts';
import { normaliseEmail } from '../../domain/identity/email.ts';
import { handleUserCommand } from '../../domain/identity/handleUserCommand.ts';
import { loadUser } from '../../domain/identity/loadUser.ts';
import { checkPassword } from '../../domain/identity/passwordPolicy.ts';
import { uniqueValueHolder } from '../../domain/identity/uniqueValues.ts';
import type { AppDeps } from '../appDeps.ts';
import { commandContextOf } from '../http/commandContextOf.ts';
import { HttpError } from '../http/httpError.ts';
import { parseBody } from '../http/parseBody.ts';
import type { RouteDef } from '../http/route.ts';
import { readYourWrites } from '../http/readYourWrites.ts';
import { appUrl } from './appUrl.ts';
import { catchUpWith } from './catchUpWith.ts';
import { newTokenId } from './newSessionTokens.ts';
import { passwordResetMail } from './passwordResetMail.ts';
import { settleAuthChange } from '../http/settleAuthChange.ts';

const requireBasicAuth = (deps: AppDeps) => {
  if (deps.settings.auth.disableBasicAuth) throw new HttpError(403, 'basic_auth_disabled', 'Forbidden');
};

/**
 * `POST /auth/password-reset-email`: mails a single-use link to a local user. Every email, known
 * or not, gets the same 204, so the endpoint does not reveal who has an account.
 */
const requestReset = (deps: AppDeps): RouteDef => ({
  method: 'POST',
  path: '/auth/password-reset-email',
  permission: 'public',
  handler: async (ctx) => {
    requireBasicAuth(deps);
    const { email } = parseBody(ctx, z.strictObject({ email: z.string().optional() }));
    if (!email?.trim()) throw new HttpError(422, 'email_required', 'Email required');
    const { mailer, tokens } = deps.identity;
    if (mailer === null || tokens === null) throw new HttpError(503, 'smtp_not_configured', 'SMTP server not configured');
    ctx.status = 204;
    const address = normaliseEmail(email);
    const userId = await uniqueValueHolder(deps.store, 'email', address);
    const user = userId === null ? null : await loadUser(deps.store, userId);
    if (userId === null || user?.status !== 'active' || user.profile?.authMethod !== 'LOCAL') return;
    const now = deps.identity.now();
    const minutes = deps.settings.auth.tokenExpiryMinutes.passwordReset;
    const tokenId = newTokenId();
    const result = await handleUserCommand(
      deps.store,
      {
        type: 'RequestPasswordReset',
        userId,
        tokenId,
        expiresAt: new Date(now.getTime() + minutes * 60_000).toISOString(),
        now: now.toISOString(),
      },
      commandContextOf(ctx),
    );
    await readYourWrites(deps.runner)(result.position);
    const link = `${appUrl(ctx, deps)}/reset-password-with-token?token=${encodeURIComponent(await tokens.sign('PasswordResetToken', tokenId))}`;
    try {
      await mailer.send(passwordResetMail(address, link, minutes));
    } catch (error) {
      // Still 204: a different answer for existing accounts would tell who has one.
      ctx.state.log?.error({ err: { message: (error as Error).message } }, 'password reset mail could not be sent');
    }
  },
});

/** `POST /auth/password-reset`: the link's token and a new password; ends every session of the user. */
const resetPassword = (deps: AppDeps): RouteDef => ({
  method: 'POST',
  path: '/auth/password-reset',
  permission: 'public',
  handler: async (ctx) => {
    requireBasicAuth(deps);
    const { token, password } = parseBody(ctx, z.strictObject({ token: z.string().optional(), password: z.string().optional() }));
    if (!password) throw new HttpError(422, 'password_required', 'Password required');
    const claims = token && deps.identity.tokens !== null ? await deps.identity.tokens.read(token) : null;
    if (claims === null || claims.kind !== 'PasswordResetToken') throw new HttpError(401, 'invalid_token', 'Invalid token');
    const userId = await catchUpWith(deps, () => resetTokenOwner(deps.identity.state, claims.id));
    if (userId === null) throw new HttpError(401, 'invalid_token', 'Invalid token');
    checkPassword(password, deps.settings.auth.passwordRule);
    const passwordHash = await deps.identity.passwords.hash(password);
    const result = await handleUserCommand(
      deps.store,
      { type: 'ResetPassword', userId, tokenId: claims.id, passwordHash, now: deps.identity.now().toISOString() },
      commandContextOf(ctx),
    );
    await settleAuthChange(deps, result.position);
    ctx.status = 204;
  },
});

export const passwordResetRoutes = (deps: AppDeps): RouteDef[] => [requestReset(deps), resetPassword(deps)];
