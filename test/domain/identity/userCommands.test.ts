import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../domain/errors.ts';
import { createDefaultAdmin } from '../../../domain/identity/builtInUsers.ts';
import { changeUsername } from '../../../domain/identity/changeUsername.ts';
import { createUser } from '../../../domain/identity/createUser.ts';
import { deleteUser } from '../../../domain/identity/deleteUser.ts';
import { loadUser } from '../../../domain/identity/loadUser.ts';
import { RESERVATION_GRACE_MS, reserveUniqueValue, uniqueValueHolder } from '../../../domain/identity/uniqueValues.ts';
import { createAlice, HASH_A, t } from './fixtures.ts';
import { memoryEventStore } from '../../support/memoryEventStore.ts';

const ctx = { actor: 'system', requestId: null };

const rejects = async (promise: Promise<unknown>, code: string) => {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, code);
    return;
  }
  assert.unreachable(`expected ${code}`);
};

test('a created user holds its username and email', async () => {
  const { store } = memoryEventStore();
  await createUser(store, createAlice(), ctx);
  assert.is(await uniqueValueHolder(store, 'email', 'ALICE@example.com'), 'u1');
  assert.is(await uniqueValueHolder(store, 'username', 'Alice'), 'u1');
  assert.is((await loadUser(store, 'u1')).status, 'active');
});

test('a second user with the same email (any case) or username is refused, and holds nothing', async () => {
  const { store } = memoryEventStore();
  await createUser(store, createAlice(), ctx);
  await rejects(createUser(store, createAlice({ userId: 'u2', username: 'bob', email: ' Alice@Example.com' }), ctx), 'email_taken');
  await rejects(createUser(store, createAlice({ userId: 'u3', username: 'ALICE', email: 'carl@example.com' }), ctx), 'username_taken');
  // u2 reserved "bob" before the email failed; it was given back.
  assert.is(await uniqueValueHolder(store, 'username', 'bob'), null);
  assert.is(await uniqueValueHolder(store, 'email', 'carl@example.com'), null);
  assert.is((await loadUser(store, 'u2')).status, 'absent');
  await createUser(store, createAlice({ userId: 'u4', username: 'bob', email: 'bob@example.com' }), ctx);
});

test('a rule break is reported before anything is reserved', async () => {
  const { store, all } = memoryEventStore();
  await rejects(createUser(store, createAlice({ role: 'SYSTEM' }), ctx), 'system_role_forbidden');
  assert.is(all.length, 0);
});

test('creating a user id twice keeps the first user’s reservations', async () => {
  const { store } = memoryEventStore();
  await createUser(store, createAlice(), ctx);
  await rejects(createUser(store, createAlice(), ctx), 'user_exists');
  assert.is(await uniqueValueHolder(store, 'username', 'alice'), 'u1');
});

test('two processes bootstrapping the same built-in user create it once and keep its names', async () => {
  const { store, hooks } = memoryEventStore();
  const admin = createDefaultAdmin('adm', HASH_A, t(0));
  // The other process writes the whole user between this one's existence check and its append.
  hooks.beforeAppend = async () => {
    await createUser(store, admin, ctx);
  };
  await rejects(createUser(store, admin, ctx), 'user_exists');
  assert.is(await uniqueValueHolder(store, 'username', 'admin'), 'adm');
  assert.is(await uniqueValueHolder(store, 'email', 'admin@localhost'), 'adm');
});

test('of two concurrent claims on one username exactly one wins', async () => {
  const { store, hooks, all } = memoryEventStore();
  // Bob claims "alice" between Alice's read of that reservation stream and her append to it.
  hooks.beforeAppend = async () => {
    await createUser(store, createAlice({ userId: 'u2', email: 'bob@example.com' }), ctx);
  };
  await rejects(createUser(store, createAlice(), ctx), 'username_taken');
  assert.is(await uniqueValueHolder(store, 'username', 'alice'), 'u2');
  assert.is(await uniqueValueHolder(store, 'email', 'alice@example.com'), null);
  assert.is(all.filter((e) => e.type === 'UniqueValueReserved').length, 2);
});

test('renaming moves the reservation; the old name is free again', async () => {
  const { store } = memoryEventStore();
  await createUser(store, createAlice(), ctx);
  await changeUsername(store, { type: 'ChangeUsername', userId: 'u1', username: 'alicia', now: t(1) }, ctx);
  assert.is(await uniqueValueHolder(store, 'username', 'alicia'), 'u1');
  assert.is(await uniqueValueHolder(store, 'username', 'alice'), null);
  await createUser(store, createAlice({ userId: 'u2', username: 'alice', email: 'other@example.com' }), ctx);
  await rejects(changeUsername(store, { type: 'ChangeUsername', userId: 'u1', username: 'ALICE', now: t(2) }, ctx), 'username_taken');
  assert.is((await loadUser(store, 'u1')).profile?.username, 'alicia');
});

test('a change of case only keeps the reservation', async () => {
  const { store } = memoryEventStore();
  await createUser(store, createAlice(), ctx);
  await changeUsername(store, { type: 'ChangeUsername', userId: 'u1', username: 'Alice', now: t(1) }, ctx);
  assert.is(await uniqueValueHolder(store, 'username', 'alice'), 'u1');
  assert.is((await loadUser(store, 'u1')).profile?.username, 'Alice');
});

test('deleting a user frees the username and the email', async () => {
  const { store } = memoryEventStore();
  await createUser(store, createAlice(), ctx);
  await deleteUser(store, { type: 'DeleteUser', userId: 'u1', now: t(1) }, ctx);
  assert.is(await uniqueValueHolder(store, 'email', 'alice@example.com'), null);
  await createUser(store, createAlice({ userId: 'u2' }), ctx);
});

test('the default admin cannot be deleted and keeps its names', async () => {
  const { store } = memoryEventStore();
  await createUser(store, createDefaultAdmin('adm', HASH_A, t(0)), ctx);
  await rejects(deleteUser(store, { type: 'DeleteUser', userId: 'adm', now: t(1) }, ctx), 'builtin_user');
  assert.is(await uniqueValueHolder(store, 'email', 'admin@localhost'), 'adm');
});

test('a reservation left by a crash is taken over after the grace period, not before', async () => {
  const { store } = memoryEventStore();
  // A process reserved the email for u9 and died before writing u9's stream.
  await reserveUniqueValue(store, 'email', 'alice@example.com', 'u9', t(0), ctx);
  await rejects(createUser(store, createAlice({ now: t(60) }), ctx), 'email_taken');
  await createUser(store, createAlice({ now: t(RESERVATION_GRACE_MS / 1000 + 1) }), ctx);
  assert.is(await uniqueValueHolder(store, 'email', 'alice@example.com'), 'u1');
});

test('a deleted holder’s reservation is taken over at once', async () => {
  const { store, all } = memoryEventStore();
  await createUser(store, createAlice(), ctx);
  // Simulate a crash after UserDeleted, before the releases.
  await store.appendToStream(
    'user-u1',
    [{ type: 'UserDeleted', data: { userId: 'u1', at: t(1) }, metadata: { actor: 'x', requestId: null, time: t(1), causation: null } }],
    0,
  );
  await createUser(store, createAlice({ userId: 'u2', now: t(2) }), ctx);
  assert.is(await uniqueValueHolder(store, 'username', 'alice'), 'u2');
  assert.ok(all.some((e) => e.type === 'UniqueValueReleased' && (e.data as { userId: string }).userId === 'u1'));
});

test.run();
