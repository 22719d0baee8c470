import { test } from 'uvu';
import { createDefaultAdmin, createSystemUser } from '../../../domain/identity/builtInUsers.ts';
import type { ChangePassword } from '../../../domain/identity/commands.ts';
import type { UserEvent } from '../../../domain/identity/events.ts';
import { userDecider } from '../../../domain/identity/userDecider.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';
import { aliceCreated, HASH_A, HASH_B, sessionStarted, t } from './fixtures.ts';

const { given } = deciderSpec(userDecider);

const bootstrapped = (command: ReturnType<typeof createSystemUser>) => userDecider.decide(command, userDecider.initialState());
const deleted: UserEvent = { type: 'UserDeleted', data: { userId: 'u1', at: t(1) } };

test('a username changes, trimmed; the same name again changes nothing', () => {
  given([aliceCreated()])
    .when({ type: 'ChangeUsername', userId: 'u1', username: ' alicia ', now: t(5) })
    .then([{ type: 'UsernameChanged', data: { userId: 'u1', username: 'alicia', previousUsername: 'alice', at: t(5) } }]);
  given([aliceCreated()])
    .when({ type: 'ChangeUsername', userId: 'u1', username: 'alice', now: t(5) })
    .then([]);
  given([aliceCreated()])
    .when({ type: 'ChangeUsername', userId: 'u1', username: ' ', now: t(5) })
    .thenThrows('username_required');
});

test('changing the username keeps the email: only a provider (SyncEmail) changes an email', () => {
  const events = [
    aliceCreated(),
    { type: 'UsernameChanged', data: { userId: 'u1', username: 'x', previousUsername: 'alice', at: t(1) } } as UserEvent,
  ];
  const state = events.reduce(userDecider.evolve, userDecider.initialState());
  if (state.profile?.email !== 'alice@example.com') throw new Error('email changed');
});

test('SyncEmail: an external user takes the normalised address; the same one changes nothing; never a local user or a bad address', () => {
  const oauth2 = aliceCreated({ authMethod: 'OAUTH2', passwordHash: null, oauth2ClientId: 'c', oauth2UserId: 's' });
  given([oauth2])
    .when({ type: 'SyncEmail', userId: 'u1', via: 'oauth2', email: ' Alice@New.Example ', now: t(5) })
    .then([
      {
        type: 'EmailChanged',
        data: { userId: 'u1', email: 'alice@new.example', previousEmail: 'alice@example.com', syncedFrom: 'oauth2', at: t(5) },
      },
    ]);
  given([oauth2])
    .when({ type: 'SyncEmail', userId: 'u1', via: 'oauth2', email: 'ALICE@example.com', now: t(5) })
    .then([]);
  given([oauth2])
    .when({ type: 'SyncEmail', userId: 'u1', via: 'oauth2', email: 'no-at-sign', now: t(5) })
    .thenThrows('email_invalid');
  given([aliceCreated()])
    .when({ type: 'SyncEmail', userId: 'u1', via: 'oauth2', email: 'x@example.com', now: t(5) })
    .thenThrows('session_method_mismatch');
  given([oauth2])
    .when({ type: 'SyncEmail', userId: 'u1', via: 'ldap', email: 'x@example.com', now: t(5) })
    .thenThrows('session_method_mismatch');
});

test('LinkExternalIdentity: records new provider ids once; the ids it already carries change nothing; ids are checked', () => {
  const oauth2 = aliceCreated({ authMethod: 'OAUTH2', passwordHash: null });
  const link = { type: 'LinkExternalIdentity', userId: 'u1', via: 'oauth2', provider: 'acme', ldapUniqueId: null, now: t(5) } as const;
  given([oauth2])
    .when({ ...link, oauth2ClientId: 'c', oauth2UserId: 's' })
    .then([
      {
        type: 'ExternalIdentityLinked',
        data: { userId: 'u1', via: 'oauth2', provider: 'acme', oauth2ClientId: 'c', oauth2UserId: 's', ldapUniqueId: null, at: t(5) },
      },
    ]);
  given([aliceCreated({ authMethod: 'OAUTH2', passwordHash: null, oauth2ClientId: 'c', oauth2UserId: 's' })])
    .when({ ...link, oauth2ClientId: 'c', oauth2UserId: 's' })
    .then([]);
  given([oauth2])
    .when({ ...link, oauth2ClientId: 'c', oauth2UserId: 's\u0000' })
    .thenThrows('external_id_invalid');
  given([aliceCreated()])
    .when({ ...link, oauth2ClientId: 'c', oauth2UserId: 's' })
    .thenThrows('session_method_mismatch');
});

const selfChange = (matches: boolean, verifiedHash: string | null = HASH_A): ChangePassword => ({
  type: 'ChangePassword',
  userId: 'u1',
  passwordHash: HASH_B,
  by: { kind: 'self', currentPassword: { matches, verifiedHash } },
  now: t(10),
});

test('a user changes their own password with the current one; all their sessions end', () => {
  given([aliceCreated({ passwordNeedsReset: true }), sessionStarted(1)])
    .when(selfChange(true))
    .then([
      { type: 'PasswordChanged', data: { userId: 'u1', passwordHash: HASH_B, needsReset: false, via: 'self', at: t(10) } },
      { type: 'SessionsRevoked', data: { userId: 'u1', reason: 'password_changed', at: t(10) } },
    ]);
});

test('without the right current password nothing changes', () => {
  given([aliceCreated()]).when(selfChange(false)).thenThrows('invalid_current_password');
  given([aliceCreated()]).when(selfChange(true, HASH_B)).thenThrows('invalid_current_password');
  given([aliceCreated({ passwordHash: null })])
    .when(selfChange(true, null))
    .thenThrows('invalid_current_password');
});

test('a password set by an admin must be changed at next login', () => {
  given([aliceCreated()])
    .when({ type: 'ChangePassword', userId: 'u1', passwordHash: HASH_B, by: { kind: 'admin' }, now: t(10) })
    .then([{ type: 'PasswordChanged', data: { userId: 'u1', passwordHash: HASH_B, needsReset: true, via: 'admin', at: t(10) } }]);
});

test('the operator recovery sets a password without the current one', () => {
  given([aliceCreated({ passwordHash: null })])
    .when({ type: 'ChangePassword', userId: 'u1', passwordHash: HASH_B, by: { kind: 'operator' }, now: t(10) })
    .then([{ type: 'PasswordChanged', data: { userId: 'u1', passwordHash: HASH_B, needsReset: false, via: 'operator', at: t(10) } }]);
});

test('non-local users have no password to change', () => {
  given([aliceCreated({ authMethod: 'LDAP', passwordHash: null })])
    .when({ type: 'ChangePassword', userId: 'u1', passwordHash: HASH_B, by: { kind: 'admin' }, now: t(10) })
    .thenThrows('password_not_local');
});

test('a role change takes effect and ends the user’s sessions', () => {
  given([aliceCreated(), sessionStarted(1)])
    .when({ type: 'ChangeRole', userId: 'u1', role: 'VIEWER', byUserId: 'admin1', now: t(10) })
    .then([
      { type: 'RoleChanged', data: { userId: 'u1', role: 'VIEWER', previousRole: 'MEMBER', at: t(10) } },
      { type: 'SessionsRevoked', data: { userId: 'u1', reason: 'role_changed', at: t(10) } },
    ]);
  given([aliceCreated()])
    .when({ type: 'ChangeRole', userId: 'u1', role: 'MEMBER', byUserId: 'admin1', now: t(10) })
    .then([]);
});

test('nobody changes their own role, the default admin’s or the system user’s, or grants SYSTEM', () => {
  given([aliceCreated({ role: 'ADMIN' })])
    .when({ type: 'ChangeRole', userId: 'u1', role: 'VIEWER', byUserId: 'u1', now: t(1) })
    .thenThrows('own_role');
  given([aliceCreated()])
    .when({ type: 'ChangeRole', userId: 'u1', role: 'SYSTEM', byUserId: 'a', now: t(1) })
    .thenThrows('system_role_forbidden');
  given(bootstrapped(createDefaultAdmin('u1', HASH_A, t(0))))
    .when({ type: 'ChangeRole', userId: 'u1', role: 'MEMBER', byUserId: 'a', now: t(1) })
    .thenThrows('builtin_role_fixed');
  given(bootstrapped(createSystemUser('u1', t(0))))
    .when({ type: 'ChangeRole', userId: 'u1', role: 'ADMIN', byUserId: 'a', now: t(1) })
    .thenThrows('builtin_role_fixed');
});

test('a user is deleted once', () => {
  given([aliceCreated()])
    .when({ type: 'DeleteUser', userId: 'u1', now: t(1) })
    .then([deleted]);
  given([aliceCreated(), deleted])
    .when({ type: 'DeleteUser', userId: 'u1', now: t(2) })
    .thenThrows('user_not_found');
  given([])
    .when({ type: 'DeleteUser', userId: 'u1', now: t(2) })
    .thenThrows('user_not_found');
});

test('the default admin and the system user cannot be deleted', () => {
  given(bootstrapped(createDefaultAdmin('u1', HASH_A, t(0))))
    .when({ type: 'DeleteUser', userId: 'u1', now: t(1) })
    .thenThrows('builtin_user');
  given(bootstrapped(createSystemUser('u1', t(0))))
    .when({ type: 'DeleteUser', userId: 'u1', now: t(1) })
    .thenThrows('builtin_user');
});

test('a deleted user cannot be changed', () => {
  given([aliceCreated(), deleted])
    .when({ type: 'ChangeUsername', userId: 'u1', username: 'x', now: t(2) })
    .thenThrows('user_not_found');
  given([aliceCreated(), deleted]).when(selfChange(true)).thenThrows('user_not_found');
});

test.run();
