import type { ApiKeyState } from '../apiKeys/apiKeyDecider.ts';
import { verifyApiKey } from '../apiKeys/apiKeyValue.ts';
import type { UserState } from '../identity/userState.ts';
import type { Resolution } from './resolution.ts';
import type { Principal } from './principal.ts';

/*
 * The same judgements as resolveAccessToken / resolveApiKey, made on the states folded from the
 * credential's own streams (the user's, the key's) instead of the in-memory auth state. Those
 * streams are the truth the moment an event is appended, whichever process appended it, so
 * these answers never lag; the authenticator uses them while the in-memory state may be behind.
 */

const INVALID = { status: 'invalid' } as const;
const EXPIRED = { status: 'expired' } as const;
const expired = (expiresAt: string | null, now: string) => expiresAt !== null && Date.parse(expiresAt) <= Date.parse(now);

/** An access token is valid while its session is alive on the user's stream (not refreshed, revoked or ended with the user). */
export const confirmAccessToken = (user: UserState, tokenId: string, now: string): Resolution<Principal> => {
  if (user.status !== 'active' || user.profile === null) return INVALID;
  const session = user.sessions.find((s) => s.accessTokenId === tokenId);
  if (session === undefined) return INVALID;
  if (expired(session.accessExpiresAt, now)) return EXPIRED;
  return { status: 'valid', value: { kind: 'user', userId: user.profile.userId, role: user.profile.role } };
};

/**
 * A presented API key judged on its stream and on the stream of the user it acts as: the owner
 * for a user key (with the owner's role now), the system user for a system key (role SYSTEM).
 */
export const confirmApiKey = (
  key: ApiKeyState,
  actingUser: UserState | null,
  keyId: string,
  presented: string,
  now: string,
): Resolution<Principal> => {
  if (key.status !== 'active' || key.keyHash === null || key.kind === null || !verifyApiKey(presented, key.keyHash)) return INVALID;
  if (actingUser === null || actingUser.status !== 'active' || actingUser.profile === null) return INVALID;
  if (expired(key.expiresAt, now)) return EXPIRED;
  const { userId, role } = actingUser.profile;
  return { status: 'valid', value: { kind: 'apiKey', keyId, keyKind: key.kind, userId, role: key.kind === 'system' ? 'SYSTEM' : role } };
};
