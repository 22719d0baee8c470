import { test } from 'uvu';
import type { EventStore } from '../../../domain/eventstore/types.ts';
import * as assert from 'uvu/assert';
import { createUser } from '../../../domain/identity/createUser.ts';
import type { SessionTokens } from '../../../domain/identity/events.ts';
import { handleUserCommand } from '../../../domain/identity/handleUserCommand.ts';
import { loadUser } from '../../../domain/identity/loadUser.ts';
import { type ExternalIdentity, signInExternally } from '../../../domain/identity/signInExternally.ts';
import { deleteUser } from '../../../domain/identity/deleteUser.ts';
import { uniqueValueHolder } from '../../../domain/identity/uniqueValues.ts';
import { memoryEventStore } from '../../support/memoryEventStore.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const context = { actor: 'system', requestId: 'test' };
let n = 0;
const session = (): SessionTokens => {
  n += 1;
  return {
    accessTokenId: `a${n}`,
    accessExpiresAt: '2026-01-02T00:00:00.000Z',
    refreshTokenId: `r${n}`,
    refreshExpiresAt: '2026-01-09T00:00:00.000Z',
  };
};
const ann: ExternalIdentity = {
  method: 'OAUTH2',
  key: 'client\u0000sub-1',
  email: 'Ann@Example.com',
  username: 'Ann',
  role: null,
  allowSignUp: true,
  oauth2ClientId: 'client',
  oauth2UserId: 'sub-1',
};
const typesOf = async (store: EventStore, userId: string) => (await store.readStream(`user-${userId}`)).map((e) => e.type);

test('a first sign-in creates the user (VIEWER without role info), the next finds it by identity; a role is synced every time', async () => {
  const { store } = memoryEventStore();
  const first = await signInExternally(store, ann, session(), NOW, context);
  assert.ok(first.ok && first.created);
  if (!first.ok) return;
  const user = (await loadUser(store, first.userId)).profile!;
  assert.equal([user.email, user.role, user.authMethod, user.username], ['ann@example.com', 'VIEWER', 'OAUTH2', 'Ann']);
  const again = await signInExternally(store, { ...ann, role: 'ADMIN' }, session(), NOW, context);
  assert.equal(again.ok && [again.userId, again.created], [first.userId, false]);
  await signInExternally(store, { ...ann, role: 'ADMIN' }, session(), NOW, context);
  assert.equal(await typesOf(store, first.userId), [
    'UserCreated',
    'SessionStarted',
    'RoleChanged',
    'SessionStarted',
    'RoleChanged',
    'SessionStarted',
  ]);
  assert.is((await loadUser(store, first.userId)).profile!.role, 'ADMIN');
});

test('a taken username gets a suffix; an email held by a local user is email_in_use (sign-up on) or sign_in_not_allowed (off)', async () => {
  const { store } = memoryEventStore();
  await createUser(
    store,
    {
      type: 'CreateUser',
      userId: 'local1',
      username: 'Ann',
      email: 'ann@example.com',
      role: 'ADMIN',
      authMethod: 'LOCAL',
      passwordHash: null,
      passwordNeedsReset: false,
      now: NOW,
    },
    context,
  );
  assert.equal(await signInExternally(store, ann, session(), NOW, context), { ok: false, code: 'email_in_use' });
  assert.equal(await signInExternally(store, { ...ann, allowSignUp: false }, session(), NOW, context), {
    ok: false,
    code: 'sign_in_not_allowed',
  });
  const other = await signInExternally(store, { ...ann, key: 'client\u0000sub-2', email: 'ann2@example.com' }, session(), NOW, context);
  assert.ok(other.ok);
  if (other.ok) assert.match((await loadUser(store, other.userId)).profile!.username, /^Ann-\d{5}$/);
});

test('sign-up off: a pre-provisioned user of the same kind is found by email and keeps its role without role info', async () => {
  const { store } = memoryEventStore();
  assert.equal(await signInExternally(store, { ...ann, allowSignUp: false }, session(), NOW, context), {
    ok: false,
    code: 'sign_in_not_allowed',
  });
  await createUser(
    store,
    {
      type: 'CreateUser',
      userId: 'pre1',
      username: 'ann',
      email: 'ann@example.com',
      role: 'MEMBER',
      authMethod: 'OAUTH2',
      passwordHash: null,
      passwordNeedsReset: false,
      now: NOW,
    },
    context,
  );
  const result = await signInExternally(store, { ...ann, allowSignUp: false }, session(), NOW, context);
  assert.equal(result.ok && result.userId, 'pre1');
  assert.is((await loadUser(store, 'pre1')).profile!.role, 'MEMBER');
});

test('a user found by email with other provider ids is another person: refused; with the same ids it is matched even with sign-up on', async () => {
  const { store } = memoryEventStore();
  const provisioned = (userId: string, email: string, subject: string) =>
    createUser(
      store,
      {
        type: 'CreateUser',
        userId,
        username: userId,
        email,
        role: 'MEMBER',
        authMethod: 'OAUTH2',
        passwordHash: null,
        passwordNeedsReset: false,
        oauth2ClientId: 'client',
        oauth2UserId: subject,
        now: NOW,
      },
      context,
    );
  await provisioned('p1', 'ann@example.com', 'someone-else');
  assert.equal(await signInExternally(store, { ...ann, allowSignUp: false }, session(), NOW, context), {
    ok: false,
    code: 'sign_in_not_allowed',
  });
  await provisioned('p2', 'bea@example.com', 'sub-9');
  const bea = await signInExternally(
    store,
    { ...ann, key: 'client\u0000sub-9', oauth2UserId: 'sub-9', email: 'bea@example.com' },
    session(),
    NOW,
    context,
  );
  assert.equal(bea.ok && bea.userId, 'p2');
  const ldapUser = await createUser(
    store,
    {
      type: 'CreateUser',
      userId: 'l1',
      username: 'l1',
      email: 'lu@example.com',
      role: 'VIEWER',
      authMethod: 'LDAP',
      passwordHash: null,
      passwordNeedsReset: false,
      ldapUniqueId: 'UUID-A',
      now: NOW,
    },
    context,
  );
  assert.ok(ldapUser);
  const ldap: ExternalIdentity = {
    method: 'LDAP',
    key: 'uuid-b',
    email: 'lu@example.com',
    username: 'Lu',
    role: 'VIEWER',
    allowSignUp: true,
    ldapUniqueId: 'uuid-b',
  };
  assert.equal(await signInExternally(store, ldap, session(), NOW, context), { ok: false, code: 'email_in_use' });
  const same = await signInExternally(store, { ...ldap, key: 'uuid-a', ldapUniqueId: 'uuid-a' }, session(), NOW, context);
  assert.equal(same.ok && same.userId, 'l1');
});

test('a name that cannot be a username falls back to the email local part', async () => {
  const { store } = memoryEventStore();
  const result = await signInExternally(store, { ...ann, username: 'bad\u0000name' }, session(), NOW, context);
  assert.ok(result.ok);
  if (result.ok) assert.is((await loadUser(store, result.userId)).profile!.username, 'Ann');
});

test('with lockout settings a locked account gets no session; a success clears the count of failures', async () => {
  const { store } = memoryEventStore();
  const lockout = { enabled: true, maxAttempts: 3 };
  const ldap: ExternalIdentity = {
    method: 'LDAP',
    key: 'uuid-l',
    email: null,
    username: 'Lo',
    role: 'VIEWER',
    allowSignUp: true,
    ldapUniqueId: 'uuid-l',
    lockout,
  };
  const first = await signInExternally(store, ldap, session(), NOW, context);
  if (!first.ok) throw new Error('created');
  const fail = () =>
    handleUserCommand(
      store,
      { type: 'LogIn', userId: first.userId, password: { matches: false, verifiedHash: null }, lockout, session: session(), now: NOW },
      context,
    );
  await fail();
  await signInExternally(store, ldap, session(), NOW, context);
  assert.is((await loadUser(store, first.userId)).failedAttempts, 0, 'LoginSucceeded reset the count');
  for (let i = 0; i < 3; i++) await fail();
  try {
    await signInExternally(store, ldap, session(), NOW, context);
    assert.unreachable('locked');
  } catch (error) {
    assert.is((error as { code?: string }).code, 'account_locked');
  }
  const later = new Date(Date.parse(NOW) + 6 * 60_000).toISOString();
  assert.ok((await signInExternally(store, ldap, session(), later, context)).ok, 'the lock ends after 5 minutes');
});

test('LDAP no-email mode; a deleted external user signs up again as a new user', async () => {
  const { store } = memoryEventStore();
  const ldap: ExternalIdentity = {
    method: 'LDAP',
    key: 'uuid-1',
    email: null,
    username: 'Dee',
    role: 'MEMBER',
    allowSignUp: true,
    ldapUniqueId: 'uuid-1',
  };
  const first = await signInExternally(store, ldap, session(), NOW, context);
  assert.ok(first.ok);
  if (!first.ok) return;
  assert.equal((await loadUser(store, first.userId)).profile!.email, null);
  await deleteUser(store, { type: 'DeleteUser', userId: first.userId, now: NOW }, context);
  const second = await signInExternally(store, ldap, session(), NOW, context);
  assert.ok(second.ok && second.created && second.userId !== first.userId);
});

const provisionOAuth2 = (store: EventStore, userId: string, email: string, ids: { oauth2ClientId?: string; oauth2UserId?: string } = {}) =>
  createUser(
    store,
    {
      type: 'CreateUser',
      userId,
      username: userId,
      email,
      role: 'MEMBER',
      authMethod: 'OAUTH2',
      passwordHash: null,
      passwordNeedsReset: false,
      ...ids,
      now: NOW,
    },
    context,
  );

test('sign-up off: the first login by email links the provider and sub (ExternalIdentityLinked); after the email changes at the provider the same user signs in and takes the new email', async () => {
  const { store } = memoryEventStore();
  await provisionOAuth2(store, 'pre1', 'ann@example.com');
  const gamma: ExternalIdentity = { ...ann, allowSignUp: false, provider: 'gamma' };
  const first = await signInExternally(store, gamma, session(), NOW, context);
  assert.equal(first.ok && first.userId, 'pre1');
  const linked = (await store.readStream('user-pre1')).find((e) => e.type === 'ExternalIdentityLinked');
  assert.equal(linked?.data, {
    userId: 'pre1',
    via: 'oauth2',
    provider: 'gamma',
    oauth2ClientId: 'client',
    oauth2UserId: 'sub-1',
    ldapUniqueId: null,
    at: NOW,
  });
  assert.equal((await loadUser(store, 'pre1')).external, { oauth2ClientId: 'client', oauth2UserId: 'sub-1', ldapUniqueId: null });
  const moved = await signInExternally(store, { ...gamma, email: 'Ann.New@Example.com' }, session(), NOW, context);
  assert.equal(moved.ok && [moved.userId, moved.created], ['pre1', false]);
  assert.is((await loadUser(store, 'pre1')).profile!.email, 'ann.new@example.com');
  const changed = (await store.readStream('user-pre1')).find((e) => e.type === 'EmailChanged');
  assert.equal(changed?.data, {
    userId: 'pre1',
    email: 'ann.new@example.com',
    previousEmail: 'ann@example.com',
    syncedFrom: 'oauth2',
    at: NOW,
  });
  assert.is(await uniqueValueHolder(store, 'email', 'ann.new@example.com'), 'pre1');
  assert.is(await uniqueValueHolder(store, 'email', 'ann@example.com'), null, 'the old address is free again');
  assert.equal(await typesOf(store, 'pre1'), ['UserCreated', 'ExternalIdentityLinked', 'SessionStarted', 'EmailChanged', 'SessionStarted']);
  const third = await signInExternally(store, { ...gamma, email: 'ann.new@example.com' }, session(), NOW, context);
  assert.equal(third.ok && third.userId, 'pre1');
  assert.equal((await typesOf(store, 'pre1')).slice(-1), ['SessionStarted'], 'nothing to link or change any more');
});

test('sign-up on: a created user found by sub takes a changed email; an email another account holds is email_in_use and changes nothing', async () => {
  const { store } = memoryEventStore();
  const first = await signInExternally(store, ann, session(), NOW, context);
  if (!first.ok) throw new Error('created');
  const moved = await signInExternally(store, { ...ann, email: 'ann@new.example.com' }, session(), NOW, context);
  assert.equal(moved.ok && [moved.userId, moved.created], [first.userId, false]);
  assert.is((await loadUser(store, first.userId)).profile!.email, 'ann@new.example.com');
  await provisionOAuth2(store, 'bea', 'bea@example.com');
  const clash = await signInExternally(store, { ...ann, email: 'BEA@example.com' }, session(), NOW, context);
  assert.equal(clash, { ok: false, code: 'email_in_use' });
  assert.is((await loadUser(store, first.userId)).profile!.email, 'ann@new.example.com');
  assert.is(await uniqueValueHolder(store, 'email', 'bea@example.com'), 'bea');
  const clashOff = await signInExternally(store, { ...ann, allowSignUp: false, email: 'bea@example.com' }, session(), NOW, context);
  assert.equal(clashOff, { ok: false, code: 'email_in_use' }, 'a known user is refused for the clash, not for sign-up');
});

test('sign-up off: a user linked through one client moves to another client that matches it by email (one OAuth2 identity at a time); the old one no longer finds it', async () => {
  const { store } = memoryEventStore();
  await provisionOAuth2(store, 'pre1', 'ann@example.com');
  const viaX: ExternalIdentity = { ...ann, allowSignUp: false, key: 'x\u0000s-x', oauth2ClientId: 'x', oauth2UserId: 's-x', provider: 'x' };
  const viaY: ExternalIdentity = { ...ann, allowSignUp: false, key: 'y\u0000s-y', oauth2ClientId: 'y', oauth2UserId: 's-y', provider: 'y' };
  assert.equal((await signInExternally(store, viaX, session(), NOW, context)).ok, true);
  assert.equal((await signInExternally(store, viaY, session(), NOW, context)).ok, true);
  assert.equal((await loadUser(store, 'pre1')).external, { oauth2ClientId: 'y', oauth2UserId: 's-y', ldapUniqueId: null });
  const xMoved = await signInExternally(store, { ...viaX, email: 'elsewhere@example.com' }, session(), NOW, context);
  assert.equal(xMoved, { ok: false, code: 'sign_in_not_allowed' }, 'x is no longer linked, and its new email matches nobody');
  const sameClientOtherSub = await signInExternally(
    store,
    { ...viaY, key: 'y\u0000s-other', oauth2UserId: 's-other' },
    session(),
    NOW,
    context,
  );
  assert.equal(sameClientOtherSub, { ok: false, code: 'sign_in_not_allowed' }, 'another sub under the same client is another person');
});

test('a user an admin created with the provider ids is found by them at its first login, whatever email the provider reports; the ids are one user only', async () => {
  const { store } = memoryEventStore();
  await provisionOAuth2(store, 'pre7', 'old@example.com', { oauth2ClientId: 'client', oauth2UserId: 'sub-7' });
  const identity: ExternalIdentity = {
    ...ann,
    allowSignUp: false,
    key: 'client\u0000sub-7',
    oauth2UserId: 'sub-7',
    email: 'new@example.com',
  };
  const first = await signInExternally(store, identity, session(), NOW, context);
  assert.equal(first.ok && first.userId, 'pre7');
  assert.is((await loadUser(store, 'pre7')).profile!.email, 'new@example.com');
  try {
    await provisionOAuth2(store, 'dup', 'dup@example.com', { oauth2ClientId: 'client', oauth2UserId: 'sub-7' });
    assert.unreachable('the same ids twice');
  } catch (error) {
    assert.is((error as { code?: string }).code, 'external_identity_taken');
  }
  assert.is(await uniqueValueHolder(store, 'email', 'dup@example.com'), null, 'the refused user reserved nothing');
  assert.is(await uniqueValueHolder(store, 'username', 'dup'), null);
});

test('deleting a linked user frees its identity: the provider then signs up a new user', async () => {
  const { store } = memoryEventStore();
  await provisionOAuth2(store, 'pre1', 'ann@example.com');
  assert.ok((await signInExternally(store, { ...ann, allowSignUp: false }, session(), NOW, context)).ok);
  await deleteUser(store, { type: 'DeleteUser', userId: 'pre1', now: NOW }, context);
  const again = await signInExternally(store, ann, session(), NOW, context);
  assert.ok(again.ok && again.created && again.userId !== 'pre1');
});

test('LDAP with a unique id: a user found by email gets the unique id linked; later a changed email follows it', async () => {
  const { store } = memoryEventStore();
  await createUser(
    store,
    {
      type: 'CreateUser',
      userId: 'l1',
      username: 'lu',
      email: 'lu@example.com',
      role: 'VIEWER',
      authMethod: 'LDAP',
      passwordHash: null,
      passwordNeedsReset: false,
      now: NOW,
    },
    context,
  );
  const ldap: ExternalIdentity = {
    method: 'LDAP',
    key: 'uuid-a',
    email: 'lu@example.com',
    username: 'Lu',
    role: 'MEMBER',
    allowSignUp: false,
    ldapUniqueId: 'UUID-A',
  };
  const first = await signInExternally(store, ldap, session(), NOW, context);
  assert.equal(first.ok && first.userId, 'l1');
  assert.is((await loadUser(store, 'l1')).external.ldapUniqueId, 'UUID-A');
  const moved = await signInExternally(store, { ...ldap, email: 'lu.moved@example.com', ldapUniqueId: 'uuid-a' }, session(), NOW, context);
  assert.equal(moved.ok && moved.userId, 'l1');
  assert.is((await loadUser(store, 'l1')).profile!.email, 'lu.moved@example.com');
});

test.run();
