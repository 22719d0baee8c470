import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUnknownAccountLockout } from '../../../domain/identity/unknownAccountLockout.ts';

const ON = { enabled: true, maxAttempts: 3 };
const t = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes)).toISOString();

test('the failure that reaches the limit locks the email for five minutes, like an account', () => {
  const lockout = createUnknownAccountLockout();
  for (let i = 0; i < 2; i++) lockout.recordFailure('x@example.com', t(0), ON);
  assert.is(lockout.isLocked('x@example.com', t(0), ON), false);
  lockout.recordFailure('x@example.com', t(0), ON);
  assert.is(lockout.isLocked('x@example.com', t(4), ON), true);
  assert.is(lockout.isLocked('y@example.com', t(4), ON), false, 'per email');
  assert.is(lockout.isLocked('x@example.com', t(5), ON), false, 'over after five minutes');
});

test('with lockout disabled nothing is counted', () => {
  const lockout = createUnknownAccountLockout();
  const off = { enabled: false, maxAttempts: 1 };
  lockout.recordFailure('x@example.com', t(0), off);
  assert.is(lockout.isLocked('x@example.com', t(0), ON), false);
});

test('memory is bounded: the oldest emails are forgotten first', () => {
  const lockout = createUnknownAccountLockout(2);
  const one = { enabled: true, maxAttempts: 1 };
  for (const email of ['a@x.io', 'b@x.io', 'c@x.io']) lockout.recordFailure(email, t(0), one);
  assert.equal(
    ['a@x.io', 'b@x.io', 'c@x.io'].map((e) => lockout.isLocked(e, t(1), one)),
    [false, true, true],
  );
});

test.run();
