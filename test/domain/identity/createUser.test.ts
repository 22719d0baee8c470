import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createDefaultAdmin, createSystemUser } from '../../../domain/identity/builtInUsers.ts';
import type { UserEvent } from '../../../domain/identity/events.ts';
import { userDecider } from '../../../domain/identity/userDecider.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';
import { aliceCreated, createAlice, HASH_A, t } from './fixtures.ts';

const { given } = deciderSpec(userDecider);

test('a user is created with the email trimmed and lower-cased and the username trimmed', () => {
  given([])
    .when(createAlice({ username: '  alice ', email: '  Alice@Example.COM ' }))
    .then([aliceCreated()]);
});

test('a user id is used once', () => {
  given([aliceCreated()]).when(createAlice()).thenThrows('user_exists');
});

test('an invalid email is refused', () => {
  given([])
    .when(createAlice({ email: 'not-an-email' }))
    .thenThrows('email_invalid');
  given([])
    .when(createAlice({ email: 'a b@example.com' }))
    .thenThrows('email_invalid');
});

test('only LDAP users may have no email', () => {
  given([])
    .when(createAlice({ email: null }))
    .thenThrows('email_required');
  given([])
    .when(createAlice({ email: null, authMethod: 'LDAP', passwordHash: null, ldapUniqueId: 'abc' }))
    .then([aliceCreated({ email: null, authMethod: 'LDAP', passwordHash: null, ldapUniqueId: 'abc' })]);
});

test('a blank username is refused', () => {
  given([])
    .when(createAlice({ username: '   ' }))
    .thenThrows('username_required');
});

test('nobody creates a SYSTEM user; bootstrap creates the one system user', () => {
  given([])
    .when(createAlice({ role: 'SYSTEM' }))
    .thenThrows('system_role_forbidden');
  given([])
    .when(createSystemUser('sys', t(0)))
    .thenMatches((events) => {
      const created = events[0] as Extract<UserEvent, { type: 'UserCreated' }>;
      assert.is(created.data.role, 'SYSTEM');
      assert.is(created.data.builtIn, 'system');
      assert.is(created.data.email, 'system@localhost');
      assert.is(created.data.passwordHash, null);
    });
});

test('the default admin must choose a new password at first login', () => {
  given([])
    .when(createDefaultAdmin('adm', HASH_A, t(0)))
    .thenMatches((events) => {
      const created = events[0] as Extract<UserEvent, { type: 'UserCreated' }>;
      assert.equal(
        [created.data.username, created.data.email, created.data.role, created.data.builtIn, created.data.passwordNeedsReset],
        ['admin', 'admin@localhost', 'ADMIN', 'default_admin', true],
      );
    });
});

test('only local users have a password', () => {
  given([])
    .when(createAlice({ authMethod: 'OAUTH2' }))
    .thenThrows('password_not_local');
});

test('a password that is not an argon2id hash never reaches the log', () => {
  given([])
    .when(createAlice({ passwordHash: 'hunter2' }))
    .thenThrows('password_hash_invalid');
  given([])
    .when(createAlice({ passwordHash: '$argon2i$v=19$m=1024,t=1,p=1$c2FsdA$aGFzaA' }))
    .thenThrows('password_hash_invalid');
});

test('with basic auth disabled no local user is created, external ones are', () => {
  given([])
    .when(createAlice({ basicAuthDisabled: true }))
    .thenThrows('basic_auth_disabled');
  given([])
    .when(createAlice({ basicAuthDisabled: true, authMethod: 'OAUTH2', passwordHash: null }))
    .then([aliceCreated({ authMethod: 'OAUTH2', passwordHash: null })]);
});

test('a local user without a password (SERVICE_ADMINS) is created, flagged to reset', () => {
  given([])
    .when(createAlice({ passwordHash: null, passwordNeedsReset: true, role: 'ADMIN' }))
    .then([aliceCreated({ passwordHash: null, passwordNeedsReset: true, role: 'ADMIN' })]);
});

test.run();
