import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { confirmAccessToken, confirmApiKey } from '../../../domain/access/confirmCredential.ts';
import { apiKeyDecider } from '../../../domain/apiKeys/apiKeyDecider.ts';
import { generateApiKey } from '../../../domain/apiKeys/apiKeyValue.ts';
import type { ApiKeyEvent } from '../../../domain/apiKeys/events.ts';
import { fold } from '../../../domain/decider.ts';
import type { UserEvent } from '../../../domain/identity/events.ts';
import { userDecider } from '../../../domain/identity/userDecider.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-01T00:20:00.000Z';

const created: UserEvent = {
  type: 'UserCreated',
  data: {
    userId: 'u1',
    username: 'kim',
    email: 'kim@example.com',
    role: 'MEMBER',
    authMethod: 'LOCAL',
    passwordHash: null,
    passwordNeedsReset: false,
    builtIn: null,
    oauth2ClientId: null,
    oauth2UserId: null,
    ldapUniqueId: null,
    at: NOW,
  },
};
const session: UserEvent = {
  type: 'SessionStarted',
  data: {
    userId: 'u1',
    via: 'password',
    accessTokenId: 'a1',
    accessExpiresAt: '2026-01-01T00:10:00.000Z',
    refreshTokenId: 'r1',
    refreshExpiresAt: '2026-01-08T00:00:00.000Z',
    at: NOW,
  },
};
const user = (...events: UserEvent[]) => fold(userDecider, [created, ...events]);

test("an access token is valid while its session lives on the user's stream, with the role the stream has now", () => {
  assert.equal(confirmAccessToken(user(session), 'a1', NOW), { status: 'valid', value: { kind: 'user', userId: 'u1', role: 'MEMBER' } });
  assert.equal(confirmAccessToken(user(session), 'a1', LATER), { status: 'expired' });
  assert.equal(confirmAccessToken(user(session), 'other', NOW), { status: 'invalid' });
});

test('logout, refresh and deletion end the token on the stream', () => {
  const revoked: UserEvent = { type: 'SessionsRevoked', data: { userId: 'u1', reason: 'logout', at: NOW } };
  assert.equal(confirmAccessToken(user(session, revoked), 'a1', NOW), { status: 'invalid' });
  const refreshed: UserEvent = {
    type: 'SessionRefreshed',
    data: { ...session.data, consumedRefreshTokenId: 'r1', accessTokenId: 'a2', refreshTokenId: 'r2' } as never,
  };
  assert.equal(confirmAccessToken(user(session, refreshed), 'a1', NOW), { status: 'invalid' });
  assert.is(confirmAccessToken(user(session, refreshed), 'a2', NOW).status, 'valid');
  assert.equal(confirmAccessToken(user(session, { type: 'UserDeleted', data: { userId: 'u1', at: NOW } }), 'a1', NOW), {
    status: 'invalid',
  });
});

test("an API key is judged on its stream and its owner's", () => {
  const { keyId, value, keyHash } = generateApiKey();
  const issued: ApiKeyEvent = {
    type: 'ApiKeyIssued',
    data: { keyId, kind: 'user', ownerUserId: 'u1', createdBy: 'u1', name: 'k', description: null, expiresAt: null, keyHash, at: NOW },
  };
  const key = fold(apiKeyDecider, [issued]);
  assert.equal(confirmApiKey(key, user(), keyId, value, NOW), {
    status: 'valid',
    value: { kind: 'apiKey', keyId, keyKind: 'user', userId: 'u1', role: 'MEMBER' },
  });
  assert.equal(confirmApiKey(key, user(), keyId, `${value}x`, NOW), { status: 'invalid' }, 'wrong secret');
  const revoked = fold(apiKeyDecider, [
    issued,
    { type: 'ApiKeyRevoked', data: { keyId, kind: 'user', ownerUserId: 'u1', reason: 'deleted', at: NOW } },
  ]);
  assert.equal(confirmApiKey(revoked, user(), keyId, value, NOW), { status: 'invalid' });
  assert.equal(confirmApiKey(key, user({ type: 'UserDeleted', data: { userId: 'u1', at: NOW } }), keyId, value, NOW), {
    status: 'invalid',
  });
  const demoted = user({ type: 'RoleChanged', data: { userId: 'u1', role: 'VIEWER', previousRole: 'MEMBER', at: NOW } });
  assert.is((confirmApiKey(key, demoted, keyId, value, NOW) as { value: { role: string } }).value.role, 'VIEWER');
});

test.run();
