import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  adminSecretPrincipal,
  applyAuthEvent,
  createAuthState,
  pruneExpiredTokens,
  refreshTokenOwner,
  resetTokenOwner,
  resolveAccessToken,
  resolveApiKey,
} from '../../../projections/identity/authState.ts';
import { generateApiKey } from '../../../domain/apiKeys/apiKeyValue.ts';
import type { ApiKeyEvent } from '../../../domain/apiKeys/events.ts';
import { createSystemUser } from '../../../domain/identity/builtInUsers.ts';
import type { UserEvent } from '../../../domain/identity/events.ts';
import { userDecider } from '../../../domain/identity/userDecider.ts';
import { aliceCreated, sessionStarted, t, tokens } from '../../domain/identity/fixtures.ts';

const systemCreated = userDecider.decide(createSystemUser('sys', t(0)), userDecider.initialState());

const stateOf = (events: readonly (UserEvent | ApiKeyEvent)[]) => {
  const state = createAuthState();
  for (const event of events) applyAuthEvent(state, event);
  return state;
};

const key = generateApiKey('k1');
const userKey = (expiresAt: string | null = null): ApiKeyEvent => ({
  type: 'ApiKeyIssued',
  data: {
    keyId: 'k1',
    kind: 'user',
    ownerUserId: 'u1',
    createdBy: 'u1',
    name: 'ci',
    description: null,
    expiresAt,
    keyHash: key.keyHash,
    at: t(0),
  },
});
const systemKey: ApiKeyEvent = {
  type: 'ApiKeyIssued',
  data: {
    keyId: 'k1',
    kind: 'system',
    ownerUserId: null,
    createdBy: 'u1',
    name: 'ci',
    description: null,
    expiresAt: null,
    keyHash: key.keyHash,
    at: t(0),
  },
};
const roleChanged = (role: 'VIEWER' | 'ADMIN'): UserEvent => ({
  type: 'RoleChanged',
  data: { userId: 'u1', role, previousRole: 'MEMBER', at: t(1) },
});
const deleted: UserEvent = { type: 'UserDeleted', data: { userId: 'u1', at: t(2) } };

test('an access token is valid until it expires, and carries the user’s current role', () => {
  const state = stateOf([aliceCreated(), sessionStarted(1)]);
  assert.equal(resolveAccessToken(state, 'access-1', t(10)), { status: 'valid', value: { kind: 'user', userId: 'u1', role: 'MEMBER' } });
  assert.equal(resolveAccessToken(state, 'access-1', t(600)), { status: 'expired' });
  assert.equal(resolveAccessToken(state, 'nope', t(10)), { status: 'invalid' });
  applyAuthEvent(state, roleChanged('ADMIN'));
  assert.equal(resolveAccessToken(state, 'access-1', t(10)), { status: 'valid', value: { kind: 'user', userId: 'u1', role: 'ADMIN' } });
});

test('logout, refresh and deletion end tokens at once', () => {
  const state = stateOf([aliceCreated(), sessionStarted(1), sessionStarted(2)]);
  assert.is(refreshTokenOwner(state, 'refresh-1'), 'u1');
  applyAuthEvent(state, { type: 'SessionRefreshed', data: { userId: 'u1', consumedRefreshTokenId: 'refresh-1', ...tokens(3), at: t(5) } });
  assert.equal(resolveAccessToken(state, 'access-1', t(10)), { status: 'invalid' });
  assert.is(refreshTokenOwner(state, 'refresh-1'), null);
  assert.is(resolveAccessToken(state, 'access-3', t(10)).status, 'valid');
  applyAuthEvent(state, { type: 'SessionsRevoked', data: { userId: 'u1', reason: 'logout', at: t(6) } });
  assert.is(resolveAccessToken(state, 'access-2', t(10)).status, 'invalid');
  assert.is(resolveAccessToken(state, 'access-3', t(10)).status, 'invalid');
  const other = stateOf([aliceCreated(), sessionStarted(1), deleted]);
  assert.is(resolveAccessToken(other, 'access-1', t(10)).status, 'invalid');
});

test('a user key acts with its owner’s role now', () => {
  const state = stateOf([aliceCreated(), userKey()]);
  assert.equal(resolveApiKey(state, key.value, t(5)), {
    status: 'valid',
    value: { kind: 'apiKey', keyId: 'k1', keyKind: 'user', userId: 'u1', role: 'MEMBER' },
  });
  applyAuthEvent(state, roleChanged('VIEWER'));
  const after = resolveApiKey(state, key.value, t(5));
  assert.ok(after.status === 'valid' && after.value.kind === 'apiKey' && after.value.role === 'VIEWER');
});

test('a wrong secret, a revoked key, an expired key and a deleted owner’s key do not authenticate', () => {
  const state = stateOf([aliceCreated(), userKey(t(100))]);
  assert.is(resolveApiKey(state, generateApiKey('k1').value, t(5)).status, 'invalid');
  assert.is(resolveApiKey(state, 'garbage', t(5)).status, 'invalid');
  assert.is(resolveApiKey(state, key.value, t(100)).status, 'expired');
  applyAuthEvent(state, { type: 'ApiKeyRevoked', data: { keyId: 'k1', kind: 'user', ownerUserId: 'u1', reason: 'deleted', at: t(6) } });
  assert.is(resolveApiKey(state, key.value, t(5)).status, 'invalid');
  assert.is(resolveApiKey(stateOf([aliceCreated(), userKey(), deleted]), key.value, t(5)).status, 'invalid');
});

test('a system key acts as the system user with role SYSTEM and outlives its creator', () => {
  const state = stateOf([...systemCreated, aliceCreated({ role: 'ADMIN' }), systemKey, deleted]);
  assert.equal(resolveApiKey(state, key.value, t(5)), {
    status: 'valid',
    value: { kind: 'apiKey', keyId: 'k1', keyKind: 'system', userId: 'sys', role: 'SYSTEM' },
  });
  assert.equal(adminSecretPrincipal(state), { kind: 'adminSecret', userId: 'sys' });
  assert.is(adminSecretPrincipal(createAuthState()), null);
});

test('only the latest reset token is known, and a password change forgets it', () => {
  const requested = (tokenId: string): UserEvent => ({
    type: 'PasswordResetRequested',
    data: { userId: 'u1', tokenId, expiresAt: t(900), at: t(0) },
  });
  const state = stateOf([aliceCreated(), requested('r1'), requested('r2')]);
  assert.is(resetTokenOwner(state, 'r1'), null);
  assert.is(resetTokenOwner(state, 'r2'), 'u1');
  applyAuthEvent(state, {
    type: 'PasswordChanged',
    data: { userId: 'u1', passwordHash: 'h', needsReset: false, via: 'reset_token', at: t(5) },
  });
  assert.is(resetTokenOwner(state, 'r2'), null);
});

test('expired tokens can be pruned from memory', () => {
  const state = stateOf([aliceCreated(), sessionStarted(1, 0, 60)]);
  pruneExpiredTokens(state, t(599));
  assert.is(state.accessTokens.size + state.refreshTokens.size, 1);
  pruneExpiredTokens(state, t(600));
  assert.is(state.accessTokens.size + state.refreshTokens.size, 0);
});

test('other modules’ events are ignored', () => {
  const state = stateOf([aliceCreated()]);
  applyAuthEvent(state, { type: 'SpansIngested', data: {} });
  assert.is(state.users.size, 1);
});

test.run();
