import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import { checkApiKeyDescription, checkApiKeyExpiry, cleanApiKeyName } from './apiKeyText.ts';
import type { ApiKeyEvent, ApiKeyIssued, ApiKeyKind, ApiKeyRevokedReason } from './events.ts';

/** The issue as it will be recorded; `keyHash` comes from generateApiKey. */
export type IssueApiKey = { readonly type: 'IssueApiKey' } & Omit<ApiKeyIssued['data'], 'at'> & { readonly now: string };

export type RevokeApiKey = {
  readonly type: 'RevokeApiKey';
  readonly keyId: string;
  /** The kind the route manages: a user key asked for through the system route is "not found". */
  readonly kind: ApiKeyKind;
  /** Who asks: a user key may be revoked by its owner or an admin; a system key by an admin. */
  readonly requester: { readonly userId: string | null; readonly isAdmin: boolean };
  readonly reason: ApiKeyRevokedReason;
  readonly now: string;
};

export type ApiKeyCommand = IssueApiKey | RevokeApiKey;

export type ApiKeyState = {
  readonly status: 'absent' | 'active' | 'revoked';
  readonly kind: ApiKeyKind | null;
  readonly ownerUserId: string | null;
  /** What a presented key is checked against, and until when (null = never expires). */
  readonly keyHash: string | null;
  readonly expiresAt: string | null;
};

const notFound = (kind: ApiKeyKind): DomainError =>
  new DomainError('api_key_not_found', kind === 'system' ? 'System API key not found' : 'API key not found', 'not_found');

const issue = (c: IssueApiKey, state: ApiKeyState): ApiKeyEvent[] => {
  if (state.status !== 'absent') throw new DomainError('api_key_exists', 'API key already exists', 'conflict');
  const name = cleanApiKeyName(c.name);
  const description = checkApiKeyDescription(c.description);
  const expiresAt = checkApiKeyExpiry(c.expiresAt, c.now);
  if ((c.kind === 'user') !== (c.ownerUserId !== null)) {
    throw new DomainError('api_key_owner_invalid', 'A user key has an owner; a system key has none', 'invalid');
  }
  if (!/^sha256:[A-Za-z0-9_-]{43}$/.test(c.keyHash)) {
    throw new DomainError('api_key_hash_invalid', 'Expected the hash of the key, not the key', 'invalid');
  }
  return [
    {
      type: 'ApiKeyIssued',
      data: {
        keyId: c.keyId,
        kind: c.kind,
        ownerUserId: c.ownerUserId,
        createdBy: c.createdBy,
        name,
        description,
        expiresAt,
        keyHash: c.keyHash,
        at: c.now,
      },
    },
  ];
};

/**
 * Someone else's key answers "not found", not "forbidden", so a caller cannot probe which key ids
 * exist.
 */
const revoke = (c: RevokeApiKey, state: ApiKeyState): ApiKeyEvent[] => {
  if (state.status !== 'active' || state.kind !== c.kind) throw notFound(c.kind);
  const allowed = c.requester.isAdmin || (state.kind === 'user' && c.requester.userId !== null && c.requester.userId === state.ownerUserId);
  if (!allowed) throw notFound(c.kind);
  return [
    { type: 'ApiKeyRevoked', data: { keyId: c.keyId, kind: state.kind, ownerUserId: state.ownerUserId, reason: c.reason, at: c.now } },
  ];
};

/** The decider of one key's stream (`apikey-<id>`, see apiKeyStream). */
export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  initialState: () => ({ status: 'absent', kind: null, ownerUserId: null, keyHash: null, expiresAt: null }),
  evolve: (state, event) =>
    event.type === 'ApiKeyIssued'
      ? {
          status: 'active',
          kind: event.data.kind,
          ownerUserId: event.data.ownerUserId,
          keyHash: event.data.keyHash,
          expiresAt: event.data.expiresAt,
        }
      : { ...state, status: 'revoked' },
  decide: (command, state) => (command.type === 'IssueApiKey' ? issue(command, state) : revoke(command, state)),
};
