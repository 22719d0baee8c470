import type Koa from 'koa';
import { z } from 'zod';
import { DomainError } from '../../../domain/errors.ts';
import { LOCKED_MESSAGE } from '../../../domain/identity/lockout.ts';
import { handleUserCommand } from '../../../domain/identity/handleUserCommand.ts';
import { findExternalUser, signInExternally } from '../../../domain/identity/signInExternally.ts';
import type { AppDeps } from '../../appDeps.ts';
import { commandContextOf } from '../../http/commandContextOf.ts';
import { HttpError } from '../../http/httpError.ts';
import { parseBody } from '../../http/parseBody.ts';
import type { RouteDef } from '../../http/route.ts';
import { readYourWrites } from '../../http/readYourWrites.ts';
import { SIGN_IN_SETTLE_MS } from '../signInSettleMs.ts';
import { newSessionTokens } from '../newSessionTokens.ts';
import { sendSessionCookies } from '../sendSessionCookies.ts';
import { authenticateLdap, type RefusedEntry } from './ldapDirectory.ts';
import type { LdapSettings } from './ldapSettings.ts';

const body = z.strictObject({ username: z.string().optional(), password: z.string().optional() });

const USERNAME_MAX = 256;
const PASSWORD_MAX = 1024;
/** Directory logins at once; more wait their turn rather than opening ever more connections. */
const MAX_CONCURRENT = 10;

const refused = () => new HttpError(401, 'invalid_credentials', 'Invalid username and/or password');

const limiter = (max: number) => {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
};

/**
 * `POST /auth/ldap/login` with `{username, password}`: 204 and the session cookies, or one
 * generic 401 whatever went wrong (unknown user, wrong password, no role mapping, an account of
 * another kind holding the email), so the answer tells nobody which usernames exist. Failures
 * count towards the lockout of that username (429 once locked, before the directory is asked).
 */
const ldapLogin = (deps: AppDeps, settings: LdapSettings): RouteDef => {
  const limit = limiter(MAX_CONCURRENT);
  return {
    method: 'POST',
    path: '/auth/ldap/login',
    permission: 'public',
    handler: async (ctx) => {
      const auth = deps.settings.auth;
      const { username, password } = parseBody(ctx, body);
      if (!username?.trim() || !password || username.length > USERNAME_MAX || password.length > PASSWORD_MAX) throw refused();
      const now = deps.identity.now();
      const lockKey = `ldap:${username.trim().normalize('NFC').toLowerCase()}`;
      if (deps.identity.unknownAccounts.isLocked(lockKey, now.toISOString(), auth.lockout)) {
        throw new DomainError('account_locked', LOCKED_MESSAGE, 'locked');
      }
      const outcome = await limit(() => authenticateLdap(settings, username, password));
      if (outcome.kind !== 'ok') {
        deps.logger.info({ reason: outcome.reason }, outcome.kind === 'unavailable' ? 'LDAP servers unavailable' : 'LDAP login refused');
        if (outcome.kind === 'unavailable') throw new HttpError(503, 'ldap_unavailable', 'The directory server could not be reached');
        deps.identity.unknownAccounts.recordFailure(lockKey, now.toISOString(), auth.lockout);
        if (outcome.entry !== null) await countAgainstAccount(deps, settings, outcome.entry, ctx);
        throw refused();
      }
      const { user } = outcome;
      const session = newSessionTokens(now, auth.tokenExpiryMinutes);
      const result = await signInExternally(
        deps.store,
        {
          method: 'LDAP',
          key: user.uniqueId ?? user.email ?? user.dn,
          email: user.email,
          username: user.displayName,
          role: user.role,
          allowSignUp: settings.allowSignUp,
          ldapUniqueId: user.uniqueId,
          lockout: auth.lockout,
        },
        session,
        now.toISOString(),
        commandContextOf(ctx),
      );
      if (!result.ok) {
        deps.logger.info({ reason: result.code }, 'LDAP login refused');
        throw refused();
      }
      await readYourWrites(deps.runner)(result.position, { timeoutMs: SIGN_IN_SETTLE_MS });
      await sendSessionCookies(ctx, deps, session);
      ctx.status = 204;
    },
  };
};

/**
 * A wrong password for a directory user who already has an account is also recorded on that
 * account's stream (LoginFailed, then AccountLocked), like a local user's: the lockout then holds
 * across restarts and every process, not only in this one's memory.
 */
const countAgainstAccount = async (deps: AppDeps, settings: LdapSettings, entry: RefusedEntry, ctx: Koa.Context): Promise<void> => {
  const identity = {
    method: 'LDAP' as const,
    key: entry.uniqueId ?? entry.email ?? entry.dn,
    email: entry.email,
    username: '',
    role: null,
    allowSignUp: settings.allowSignUp,
    ldapUniqueId: entry.uniqueId,
  };
  const userId = await findExternalUser(deps.store, identity);
  if (userId === null) return;
  const now = deps.identity.now();
  await handleUserCommand(
    deps.store,
    {
      type: 'LogIn',
      userId,
      password: { matches: false, verifiedHash: null },
      lockout: deps.settings.auth.lockout,
      session: newSessionTokens(now, deps.settings.auth.tokenExpiryMinutes),
      now: now.toISOString(),
    },
    commandContextOf(ctx),
  );
};

/** Mounted only when LDAP is configured, as in the reference. */
export const ldapLoginRoute = (deps: AppDeps): RouteDef[] => {
  const settings = deps.settings.auth.ldap ?? null;
  return settings === null ? [] : [ldapLogin(deps, settings)];
};
