import type { DomainEvent } from '../../domain/decider.ts';
import type { ApiKeyKind } from '../../domain/apiKeys/events.ts';
import { parseApiKey, verifyApiKey } from '../../domain/apiKeys/apiKeyValue.ts';
import type { Role } from '../../domain/identity/roles.ts';
import { loupeEvent } from '../../domain/loupeEvent.ts';
import type { Principal } from '../../domain/access/principal.ts';
import type { Resolution } from '../../domain/access/resolution.ts';
import type { UserRow } from './userQueries.ts';

/** A user as requests are authorised against them: the stored row's fields that sign-in and access read. */
export type AuthUser = Pick<UserRow, 'userId' | 'username' | 'email' | 'role' | 'authMethod' | 'passwordNeedsReset' | 'builtIn'>;

type Token = { readonly userId: string; readonly expiresAt: string };
type AccessToken = Token & { readonly refreshTokenId: string };
type RefreshToken = Token & { readonly accessTokenId: string };
type ApiKey = {
  readonly kind: ApiKeyKind;
  readonly ownerUserId: string | null;
  readonly keyHash: string;
  readonly expiresAt: string | null;
};

/**
 * What authentication needs on every request, derived from the identity and key events and kept
 * in memory (the projection runner feeds it every such event in global order). Tokens carry only
 * ids, so a revocation or role change takes effect on the next request after its event is
 * applied; while this state may be behind the log (see projections/identity/authFreshness.ts),
 * credentials are judged on their own streams instead (confirmCredential.ts).
 * Mutable maps: one instance per process, replaced wholesale on rebuild.
 */
export type AuthState = {
  readonly users: Map<string, AuthUser>;
  readonly accessTokens: Map<string, AccessToken>;
  readonly refreshTokens: Map<string, RefreshToken>;
  /** By token id; at most one per user. */
  readonly resetTokens: Map<string, Token>;
  readonly apiKeys: Map<string, ApiKey>;
  systemUserId: string | null;
};

export const createAuthState = (): AuthState => ({
  users: new Map(),
  accessTokens: new Map(),
  refreshTokens: new Map(),
  resetTokens: new Map(),
  apiKeys: new Map(),
  systemUserId: null,
});

const dropWhere = <V>(map: Map<string, V>, drop: (value: V) => boolean): void => {
  for (const [id, value] of map) if (drop(value)) map.delete(id);
};

const endSessions = (state: AuthState, userId: string): void => {
  dropWhere(state.accessTokens, (t) => t.userId === userId);
  dropWhere(state.refreshTokens, (t) => t.userId === userId);
};

const update = (state: AuthState, userId: string, change: Partial<AuthUser>): void => {
  const user = state.users.get(userId);
  if (user !== undefined) state.users.set(userId, { ...user, ...change });
};

/** Apply one event from the log; events of other modules are ignored. */
export const applyAuthEvent = (state: AuthState, event: DomainEvent): void => {
  const e = loupeEvent(event);
  switch (e.type) {
    case 'UserCreated': {
      const d = e.data;
      state.users.set(d.userId, {
        userId: d.userId,
        username: d.username,
        email: d.email,
        role: d.role,
        authMethod: d.authMethod,
        passwordNeedsReset: d.passwordNeedsReset,
        builtIn: d.builtIn,
      });
      if (d.builtIn === 'system') state.systemUserId = d.userId;
      return;
    }
    case 'UsernameChanged':
      return update(state, e.data.userId, { username: e.data.username });
    case 'EmailChanged':
      return update(state, e.data.userId, { email: e.data.email });
    case 'RoleChanged':
      return update(state, e.data.userId, { role: e.data.role });
    case 'PasswordChanged':
      update(state, e.data.userId, { passwordNeedsReset: e.data.needsReset });
      return dropWhere(state.resetTokens, (t) => t.userId === e.data.userId);
    case 'UserDeleted': {
      const { userId } = e.data;
      state.users.delete(userId);
      endSessions(state, userId);
      dropWhere(state.resetTokens, (t) => t.userId === userId);
      // A user key dies with its owner; system keys the user created live on.
      return dropWhere(state.apiKeys, (k) => k.kind === 'user' && k.ownerUserId === userId);
    }
    case 'SessionStarted':
    case 'SessionRefreshed': {
      const d = e.data;
      if (e.type === 'SessionRefreshed') {
        const consumed = state.refreshTokens.get(e.data.consumedRefreshTokenId);
        state.refreshTokens.delete(e.data.consumedRefreshTokenId);
        if (consumed !== undefined) state.accessTokens.delete(consumed.accessTokenId);
      }
      state.accessTokens.set(d.accessTokenId, { userId: d.userId, expiresAt: d.accessExpiresAt, refreshTokenId: d.refreshTokenId });
      state.refreshTokens.set(d.refreshTokenId, { userId: d.userId, expiresAt: d.refreshExpiresAt, accessTokenId: d.accessTokenId });
      return;
    }
    case 'SessionsRevoked':
      return endSessions(state, e.data.userId);
    case 'PasswordResetRequested':
      dropWhere(state.resetTokens, (t) => t.userId === e.data.userId);
      state.resetTokens.set(e.data.tokenId, { userId: e.data.userId, expiresAt: e.data.expiresAt });
      return;
    case 'ApiKeyIssued': {
      const d = e.data;
      state.apiKeys.set(d.keyId, { kind: d.kind, ownerUserId: d.ownerUserId, keyHash: d.keyHash, expiresAt: d.expiresAt });
      return;
    }
    case 'ApiKeyRevoked':
      state.apiKeys.delete(e.data.keyId);
      return;
    case 'LoginSucceeded':
    case 'LoginFailed':
    case 'AccountLocked':
    case 'ExternalIdentityLinked':
      return;
  }
};

/** Forget tokens that have expired; call now and then so memory does not grow with every login. */
export const pruneExpiredTokens = (state: AuthState, now: string): void => {
  const expired = (t: Token) => Date.parse(t.expiresAt) <= Date.parse(now);
  dropWhere(state.accessTokens, expired);
  dropWhere(state.refreshTokens, expired);
  dropWhere(state.resetTokens, expired);
};

export type { Resolution };

const INVALID = { status: 'invalid' } as const;
const EXPIRED = { status: 'expired' } as const;
const expiredAt = (expiresAt: string | null, now: string) => expiresAt !== null && Date.parse(expiresAt) <= Date.parse(now);

/** The principal of an access token id (from a verified JWT): 401 "Expired token" / "Invalid token" otherwise. */
export const resolveAccessToken = (state: AuthState, tokenId: string, now: string): Resolution<Principal> => {
  const token = state.accessTokens.get(tokenId);
  const user = token === undefined ? undefined : state.users.get(token.userId);
  if (token === undefined || user === undefined) return INVALID;
  if (expiredAt(token.expiresAt, now)) return EXPIRED;
  return { status: 'valid', value: { kind: 'user', userId: user.userId, role: user.role } };
};

/**
 * The principal of a presented API key: a user key acts with its owner's role now, a system key
 * as the system user with role SYSTEM.
 */
export const resolveApiKey = (state: AuthState, presented: string, now: string): Resolution<Principal> => {
  const parsed = parseApiKey(presented);
  const key = parsed === null ? undefined : state.apiKeys.get(parsed.keyId);
  if (parsed === null || key === undefined || !verifyApiKey(presented, key.keyHash)) return INVALID;
  const userId = key.kind === 'system' ? state.systemUserId : key.ownerUserId;
  const user = userId === null ? undefined : state.users.get(userId);
  if (user === undefined) return INVALID;
  if (expiredAt(key.expiresAt, now)) return EXPIRED;
  const role: Role = key.kind === 'system' ? 'SYSTEM' : user.role;
  return { status: 'valid', value: { kind: 'apiKey', keyId: parsed.keyId, keyKind: key.kind, userId: user.userId, role } };
};

/** The user whose stream holds this refresh token; the user decider then judges it. */
export const refreshTokenOwner = (state: AuthState, tokenId: string): string | null => state.refreshTokens.get(tokenId)?.userId ?? null;

/** The user whose stream holds this reset token; the user decider then judges it. */
export const resetTokenOwner = (state: AuthState, tokenId: string): string | null => state.resetTokens.get(tokenId)?.userId ?? null;

/** The admin secret acts as the system user (null until bootstrap has created it). */
export const adminSecretPrincipal = (state: AuthState): Principal | null =>
  state.systemUserId === null ? null : { kind: 'adminSecret', userId: state.systemUserId };
