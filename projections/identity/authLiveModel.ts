import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { AuthState } from './authState.ts';
import { applyAuthEvent, createAuthState, pruneExpiredTokens } from './authState.ts';
import type { LiveModel } from '../liveModel.ts';
import { userRowSchema } from './userQueries.ts';

const userRow = userRowSchema.pick({
  user_id: true,
  username: true,
  email: true,
  role: true,
  auth_method: true,
  password_needs_reset: true,
  built_in: true,
});
const tokenRow = z.object({
  token_id: z.string(),
  kind: z.enum(['access', 'refresh', 'reset']),
  user_id: z.string(),
  paired_token_id: z.string().nullable(),
  expires_at: z.number(),
});
const keyRow = z.object({
  key_id: z.string(),
  kind: z.enum(['system', 'user']),
  owner_user_id: z.string().nullable(),
  key_hash: z.string(),
  expires_at: z.number().nullable(),
});

const iso = (ms: number): string => new Date(ms).toISOString();

/** Expired tokens are dropped now and then rather than on every event. */
const PRUNE_EVERY_MS = 60_000;

/**
 * The in-memory auth state of this process: loaded from the users and api_keys read models at
 * start, then fed every event the runner reads, so a login, revocation or role change written by
 * any process is seen here on the next batch. `state` is the object authentication reads.
 */
export const createAuthLiveModel = (now: () => Date = () => new Date()): { readonly model: LiveModel; readonly state: AuthState } => {
  const state = createAuthState();
  let lastPrune = 0;
  const clear = () => {
    state.users.clear();
    state.accessTokens.clear();
    state.refreshTokens.clear();
    state.resetTokens.clear();
    state.apiKeys.clear();
    state.systemUserId = null;
  };
  const model: LiveModel = {
    name: 'auth',
    // What load() reads: a restart with `tracing` stopped far behind need not replay the log here.
    loadsFrom: ['users', 'api_keys'],
    load: async (db: CommonQueryMethods) => {
      clear();
      for (const u of await db.any(sql.type(userRow)`
        SELECT user_id, username, email, role, auth_method, password_needs_reset, built_in FROM users`)) {
        state.users.set(u.user_id, {
          userId: u.user_id,
          username: u.username,
          email: u.email,
          role: u.role,
          authMethod: u.auth_method,
          passwordNeedsReset: u.password_needs_reset,
          builtIn: u.built_in,
        });
        if (u.built_in === 'system') state.systemUserId = u.user_id;
      }
      for (const t of await db.any(sql.type(tokenRow)`
        SELECT token_id, kind, user_id, paired_token_id, expires_at FROM auth_tokens WHERE expires_at > now()`)) {
        const base = { userId: t.user_id, expiresAt: iso(t.expires_at) };
        if (t.kind === 'access') state.accessTokens.set(t.token_id, { ...base, refreshTokenId: t.paired_token_id ?? '' });
        else if (t.kind === 'refresh') state.refreshTokens.set(t.token_id, { ...base, accessTokenId: t.paired_token_id ?? '' });
        else state.resetTokens.set(t.token_id, base);
      }
      for (const k of await db.any(sql.type(keyRow)`SELECT key_id, kind, owner_user_id, key_hash, expires_at FROM api_keys`)) {
        state.apiKeys.set(k.key_id, {
          kind: k.kind,
          ownerUserId: k.owner_user_id,
          keyHash: k.key_hash,
          expiresAt: k.expires_at === null ? null : iso(k.expires_at),
        });
      }
      lastPrune = now().getTime();
    },
    apply: (events) => {
      for (const event of events) applyAuthEvent(state, event);
      const at = now().getTime();
      if (at - lastPrune >= PRUNE_EVERY_MS) {
        pruneExpiredTokens(state, new Date(at).toISOString());
        lastPrune = at;
      }
    },
  };
  return { model, state };
};
