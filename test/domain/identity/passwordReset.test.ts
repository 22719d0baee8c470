import { test } from 'uvu';
import type { ResetPassword } from '../../../domain/identity/commands.ts';
import type { UserEvent } from '../../../domain/identity/events.ts';
import { userDecider } from '../../../domain/identity/userDecider.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';
import { aliceCreated, HASH_B, sessionStarted, t } from './fixtures.ts';

const { given } = deciderSpec(userDecider);

const requested = (tokenId: string, at: number): UserEvent => ({
  type: 'PasswordResetRequested',
  data: { userId: 'u1', tokenId, expiresAt: t(at + 900), at: t(at) },
});

const reset = (tokenId: string, at: number): ResetPassword => ({
  type: 'ResetPassword',
  userId: 'u1',
  tokenId,
  passwordHash: HASH_B,
  now: t(at),
});

const changed: UserEvent = {
  type: 'PasswordChanged',
  data: { userId: 'u1', passwordHash: HASH_B, needsReset: false, via: 'reset_token', at: t(100) },
};

test('a reset request records only the token id and its expiry', () => {
  given([aliceCreated()])
    .when({ type: 'RequestPasswordReset', userId: 'u1', tokenId: 'r1', expiresAt: t(900), now: t(0) })
    .then([requested('r1', 0)]);
});

test('external users reset their password with their provider', () => {
  given([aliceCreated({ authMethod: 'OAUTH2', passwordHash: null })])
    .when({ type: 'RequestPasswordReset', userId: 'u1', tokenId: 'r1', expiresAt: t(900), now: t(0) })
    .thenThrows('password_not_local');
});

test('the latest token sets the password, clears the reset flag and ends all sessions', () => {
  given([aliceCreated({ passwordNeedsReset: true }), sessionStarted(1), requested('r1', 10)])
    .when(reset('r1', 100))
    .then([changed, { type: 'SessionsRevoked', data: { userId: 'u1', reason: 'password_changed', at: t(100) } }]);
});

test('only the latest token works', () => {
  given([aliceCreated(), requested('r1', 0), requested('r2', 10)])
    .when(reset('r1', 100))
    .thenThrows('invalid_reset_token');
});

test('a token is single use', () => {
  given([aliceCreated(), requested('r1', 10), changed])
    .when(reset('r1', 101))
    .thenThrows('invalid_reset_token');
});

test('a token expires', () => {
  given([aliceCreated(), requested('r1', 0)])
    .when(reset('r1', 900))
    .thenThrows('invalid_reset_token');
});

test('deleting the user kills the token', () => {
  given([aliceCreated(), requested('r1', 0), { type: 'UserDeleted', data: { userId: 'u1', at: t(5) } }])
    .when(reset('r1', 10))
    .thenThrows('invalid_reset_token');
});

test('any other password change voids a pending token', () => {
  const byAdmin: UserEvent = {
    type: 'PasswordChanged',
    data: { userId: 'u1', passwordHash: HASH_B, needsReset: true, via: 'admin', at: t(5) },
  };
  given([aliceCreated(), requested('r1', 0), byAdmin])
    .when(reset('r1', 10))
    .thenThrows('invalid_reset_token');
});

test('the new password must be a hash', () => {
  given([aliceCreated(), requested('r1', 0)])
    .when({ ...reset('r1', 10), passwordHash: 'new password' })
    .thenThrows('password_hash_invalid');
});

test.run();
