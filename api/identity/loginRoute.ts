import { z } from 'zod';
import { normaliseEmail } from '../../domain/identity/email.ts';
import { logIn } from '../../domain/identity/logIn.ts';
import type { AppDeps } from '../appDeps.ts';
import { commandContextOf } from '../http/commandContextOf.ts';
import { HttpError } from '../http/httpError.ts';
import { parseBody } from '../http/parseBody.ts';
import type { RouteDef } from '../http/route.ts';
import { readYourWrites } from '../http/readYourWrites.ts';
import { SIGN_IN_SETTLE_MS } from './signInSettleMs.ts';

import { newSessionTokens } from './newSessionTokens.ts';
import { sendSessionCookies } from './sendSessionCookies.ts';

const body = z.strictObject({ email: z.string().optional(), password: z.string().optional() });

/**
 * `POST /auth/login`: 204 with the session cookies. A locked account answers 429 before the
 * password is even checked (so the right password does not help); lockout is decided on the
 * user's stream, so it holds across restarts and processes.
 */
export const loginRoute = (deps: AppDeps): RouteDef => ({
  method: 'POST',
  path: '/auth/login',
  permission: 'public',
  handler: async (ctx) => {
    const settings = deps.settings.auth;
    if (settings.disableBasicAuth) throw new HttpError(403, 'basic_auth_disabled', 'Forbidden');
    const { email, password } = parseBody(ctx, body);
    if (!email?.trim() || !password) throw new HttpError(401, 'credentials_required', 'Email and password required');
    const now = deps.identity.now();
    const session = newSessionTokens(now, settings.tokenExpiryMinutes);
    const result = await logIn(
      deps.store,
      deps.identity.passwords,
      {
        email: normaliseEmail(email),
        password,
        lockout: settings.lockout,
        session,
        now: now.toISOString(),
        unknownAccounts: deps.identity.unknownAccounts,
      },
      commandContextOf(ctx),
    );
    // A failure changes nothing anyone reads back (lockout is judged on the user's stream), so it
    // is answered without waiting for the read models; a success waits until its session is known.
    if (!result.ok) throw new HttpError(401, 'invalid_credentials', 'Invalid email and/or password');
    // Nothing works until the session is known, so a lagging projection (a loaded machine) is
    // worth a longer wait here than elsewhere rather than a 503 the person must retry by hand.
    await readYourWrites(deps.runner)(result.position, { timeoutMs: SIGN_IN_SETTLE_MS });
    await sendSessionCookies(ctx, deps, session);
    ctx.status = 204;
  },
});
