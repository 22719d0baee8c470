import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../domain/errors.ts';
import { createUser } from '../../../domain/identity/createUser.ts';
import type { LoginInput } from '../../../domain/identity/logIn.ts';
import { logIn } from '../../../domain/identity/logIn.ts';
import type { PasswordHasher } from '../../../domain/identity/passwords.ts';
import { createPasswordHasher } from '../../../domain/identity/passwords.ts';
import { createAlice, LOCKOUT, t, tokens } from './fixtures.ts';
import { memoryEventStore } from '../../support/memoryEventStore.ts';

const ctx = { actor: 'anonymous', requestId: null };
const cost = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

/** A hasher that counts verifications, as a separate server process would have its own. */
const process_ = () => {
  const real = createPasswordHasher(cost);
  const counts = { verify: 0 };
  const passwords: PasswordHasher = { ...real, verify: (h, p) => (counts.verify++, real.verify(h, p)) };
  return { passwords, counts };
};

const setup = async () => {
  const { store, hooks, all } = memoryEventStore();
  const hash = await createPasswordHasher(cost).hash('s3cret');
  await createUser(store, createAlice({ passwordHash: hash }), ctx);
  return { store, hooks, all };
};

const attempt = (password: string, at: number, email = 'Alice@Example.com'): LoginInput => ({
  email,
  password,
  lockout: LOCKOUT,
  session: tokens(at),
  now: t(at),
});

const isLocked = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return false;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'account_locked' && error.kind === 'locked') return true;
    throw error;
  }
};

test('the right password logs in; a wrong one does not', async () => {
  const { store } = await setup();
  const { passwords } = process_();
  const ok = await logIn(store, passwords, attempt('s3cret', 1), ctx);
  assert.ok(ok.ok);
  if (ok.ok) assert.is(ok.user.userId, 'u1');
  assert.is((await logIn(store, passwords, attempt('nope', 2), ctx)).ok, false);
});

test('an unknown email is refused without an event', async () => {
  const { store, all } = await setup();
  const before = all.length;
  assert.is((await logIn(store, process_().passwords, attempt('s3cret', 1, 'nobody@example.com'), ctx)).ok, false);
  assert.is(all.length, before);
});

test('five failures lock the account; the right password is then refused without being verified', async () => {
  const { store } = await setup();
  const { passwords, counts } = process_();
  for (let i = 1; i <= 5; i++) assert.is((await logIn(store, passwords, attempt('nope', i), ctx)).ok, false);
  const verified = counts.verify;
  assert.ok(await isLocked(logIn(store, passwords, attempt('s3cret', 10), ctx)));
  assert.is(counts.verify, verified);
  assert.ok((await logIn(store, passwords, attempt('s3cret', 5 + 300), ctx)).ok);
});

test('the lock holds across a restart and across processes sharing the log', async () => {
  const { store } = await setup();
  // Failures spread over two processes count together: the count lives in the user's stream.
  const a = process_();
  const b = process_();
  for (let i = 1; i <= 5; i++) await logIn(store, (i % 2 ? a : b).passwords, attempt('nope', i), ctx);
  // A restarted process (nothing in memory) and the other process both see the lock.
  assert.ok(await isLocked(logIn(store, process_().passwords, attempt('s3cret', 20), ctx)));
  assert.ok(await isLocked(logIn(store, b.passwords, attempt('s3cret', 21), ctx)));
});

test('a failure racing in from another process is counted before the decision', async () => {
  const { store, hooks, all } = await setup();
  const a = process_();
  for (let i = 1; i <= 3; i++) await logIn(store, a.passwords, attempt('nope', i), ctx);
  // Process B records the 4th failure between process A's read and its append of the 5th try.
  hooks.beforeAppend = async () => {
    await logIn(store, process_().passwords, attempt('nope', 4), ctx);
  };
  await logIn(store, a.passwords, attempt('nope', 5), ctx);
  assert.ok(all.some((e) => e.type === 'AccountLocked'));
  assert.ok(await isLocked(logIn(store, a.passwords, attempt('s3cret', 6), ctx)));
});

test('with protection disabled there is no lock', async () => {
  const { store } = await setup();
  const { passwords } = process_();
  const off = { enabled: false, maxAttempts: 5 };
  for (let i = 1; i <= 6; i++) await logIn(store, passwords, { ...attempt('nope', i), lockout: off }, ctx);
  assert.ok((await logIn(store, passwords, { ...attempt('s3cret', 7), lockout: off }, ctx)).ok);
});

test('no event holds the password', async () => {
  const { store, all } = await setup();
  const { passwords } = process_();
  await logIn(store, passwords, attempt('s3cret', 1), ctx);
  await logIn(store, passwords, attempt('wrong-marker-pw', 2), ctx);
  const log = JSON.stringify(all.map((e) => [e.type, e.data, e.metadata]));
  assert.not.ok(log.includes('s3cret'));
  assert.not.ok(log.includes('wrong-marker-pw'));
});

test.run();
