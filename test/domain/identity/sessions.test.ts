import { test } from 'uvu';
import type { RefreshSession } from '../../../domain/identity/commands.ts';
import type { UserEvent } from '../../../domain/identity/events.ts';
import { userDecider } from '../../../domain/identity/userDecider.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';
import { aliceCreated, sessionStarted, t, tokens } from './fixtures.ts';

const { given } = deciderSpec(userDecider);

const refresh = (refreshTokenId: string, at: number, next = 2): RefreshSession => ({
  type: 'RefreshSession',
  userId: 'u1',
  refreshTokenId,
  next: tokens(next, 3600, at),
  now: t(at),
});

const refreshed = (consumed: string, at: number, next = 2): UserEvent => ({
  type: 'SessionRefreshed',
  data: { userId: 'u1', consumedRefreshTokenId: consumed, ...tokens(next, 3600, at), at: t(at) },
});

const revoked = (reason: 'logout' | 'password_changed' | 'role_changed', at: number): UserEvent => ({
  type: 'SessionsRevoked',
  data: { userId: 'u1', reason, at: t(at) },
});

test('a refresh token is exchanged for a new pair', () => {
  given([aliceCreated(), sessionStarted(1)])
    .when(refresh('refresh-1', 60))
    .then([refreshed('refresh-1', 60)]);
});

test('a refresh token is single use', () => {
  given([aliceCreated(), sessionStarted(1), refreshed('refresh-1', 60)])
    .when(refresh('refresh-1', 61, 3))
    .thenThrows('invalid_refresh_token');
});

test('the refreshed pair refreshes in turn', () => {
  given([aliceCreated(), sessionStarted(1), refreshed('refresh-1', 60)])
    .when(refresh('refresh-2', 120, 3))
    .then([refreshed('refresh-2', 120, 3)]);
});

test('an unknown refresh token is invalid, an old one expired', () => {
  given([aliceCreated(), sessionStarted(1)])
    .when(refresh('refresh-9', 60))
    .thenThrows('invalid_refresh_token');
  given([aliceCreated(), sessionStarted(1)])
    .when(refresh('refresh-1', 3600))
    .thenThrows('expired_refresh_token');
});

test('logout ends every session of the user', () => {
  given([aliceCreated(), sessionStarted(1), sessionStarted(2, 10)])
    .when({ type: 'LogOut', userId: 'u1', now: t(20) })
    .then([revoked('logout', 20)]);
  given([aliceCreated(), sessionStarted(1), sessionStarted(2, 10), revoked('logout', 20)])
    .when(refresh('refresh-2', 30, 3))
    .thenThrows('invalid_refresh_token');
});

test('logout with nothing to end appends nothing', () => {
  given([aliceCreated()])
    .when({ type: 'LogOut', userId: 'u1', now: t(1) })
    .then([]);
  given([aliceCreated(), sessionStarted(1, 0, 60)])
    .when({ type: 'LogOut', userId: 'u1', now: t(61) })
    .then([]);
  given([])
    .when({ type: 'LogOut', userId: 'u1', now: t(1) })
    .then([]);
});

test('expired sessions are forgotten as new ones start', () => {
  const state = [aliceCreated(), sessionStarted(1, 0, 60), sessionStarted(2, 100)].reduce(userDecider.evolve, userDecider.initialState());
  if (state.sessions.length !== 1 || state.sessions[0]!.refreshTokenId !== 'refresh-2') throw new Error(JSON.stringify(state.sessions));
});

test('OAuth2 and LDAP users get sessions from their provider, not from a password', () => {
  const session = tokens(1);
  given([aliceCreated({ authMethod: 'OAUTH2', passwordHash: null })])
    .when({ type: 'StartSession', userId: 'u1', via: 'oauth2', session, now: t(0) })
    .then([{ type: 'SessionStarted', data: { userId: 'u1', via: 'oauth2', ...session, at: t(0) } }]);
  given([aliceCreated()])
    .when({ type: 'StartSession', userId: 'u1', via: 'ldap', session, now: t(0) })
    .thenThrows('session_method_mismatch');
});

test('a deleted user has no session to refresh', () => {
  given([aliceCreated(), sessionStarted(1), { type: 'UserDeleted', data: { userId: 'u1', at: t(5) } }])
    .when(refresh('refresh-1', 10))
    .thenThrows('user_not_found');
});

test.run();
