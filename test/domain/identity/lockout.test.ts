import { test } from 'uvu';
import type { LogIn } from '../../../domain/identity/commands.ts';
import type { UserEvent } from '../../../domain/identity/events.ts';
import { userDecider } from '../../../domain/identity/userDecider.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';
import { aliceCreated, failed, HASH_A, HASH_B, LOCKOUT, t, tokens } from './fixtures.ts';

const { given } = deciderSpec(userDecider);

const login = (at: number, matches: boolean, change: Partial<LogIn> = {}): LogIn => ({
  type: 'LogIn',
  userId: 'u1',
  password: { matches, verifiedHash: HASH_A },
  lockout: LOCKOUT,
  session: tokens(1, 3600, at),
  now: t(at),
  ...change,
});

const fourFailures = [aliceCreated(), failed(1), failed(2), failed(3), failed(4)];
const locked = (at: number): UserEvent => ({ type: 'AccountLocked', data: { userId: 'u1', until: t(at + 300), at: t(at) } });

test('the right password logs in and starts a session', () => {
  given([aliceCreated()])
    .when(login(10, true))
    .then([
      { type: 'LoginSucceeded', data: { userId: 'u1', at: t(10) } },
      { type: 'SessionStarted', data: { userId: 'u1', via: 'password', ...tokens(1, 3600, 10), at: t(10) } },
    ]);
});

test('a wrong password is recorded as a failure', () => {
  given([aliceCreated()])
    .when(login(10, false))
    .then([failed(10)]);
});

test('the failure that reaches the maximum locks the account for five minutes', () => {
  given(fourFailures)
    .when(login(5, false))
    .then([failed(5), locked(5)]);
});

test('while locked, even the right password is refused', () => {
  given([...fourFailures, failed(5), locked(5)])
    .when(login(60, true))
    .thenThrows('account_locked');
  given([...fourFailures, failed(5), locked(5)])
    .when(login(304, true))
    .thenThrows('account_locked');
});

test('after five minutes the account opens and the count starts again', () => {
  const history = [...fourFailures, failed(5), locked(5)];
  given(history)
    .when(login(305, true))
    .thenMatches((events) => {
      if (events[0]?.type !== 'LoginSucceeded') throw new Error(`expected success, got ${events[0]?.type}`);
    });
  given(history)
    .when(login(305, false))
    .then([failed(305)]);
});

test('a success resets the count', () => {
  const success: UserEvent = { type: 'LoginSucceeded', data: { userId: 'u1', at: t(5) } };
  given([...fourFailures, success, failed(6), failed(7), failed(8)])
    .when(login(9, false))
    .then([failed(9)]);
});

test('a password change resets the count and opens a locked account', () => {
  const changed: UserEvent = {
    type: 'PasswordChanged',
    data: { userId: 'u1', passwordHash: HASH_B, needsReset: true, via: 'admin', at: t(6) },
  };
  given([...fourFailures, failed(5), locked(5), changed])
    .when(login(7, false, { password: { matches: false, verifiedHash: HASH_B } }))
    .then([failed(7)]);
});

test('the maximum is a setting', () => {
  given([aliceCreated(), failed(1), failed(2)])
    .when(login(3, false, { lockout: { enabled: true, maxAttempts: 3 } }))
    .then([failed(3), locked(3)]);
});

test('with protection disabled failures are recorded but never lock', () => {
  const off = { lockout: { enabled: false, maxAttempts: 5 } };
  given([...fourFailures, failed(5), failed(6)])
    .when(login(7, false, off))
    .then([failed(7)]);
  given([...fourFailures, failed(5), locked(5)])
    .when(login(6, true, off))
    .thenMatches((events) => {
      if (events[0]?.type !== 'LoginSucceeded') throw new Error('a lock must not hold once protection is disabled');
    });
});

test('a password verified against a hash replaced meanwhile does not log in', () => {
  const changed: UserEvent = {
    type: 'PasswordChanged',
    data: { userId: 'u1', passwordHash: HASH_B, needsReset: false, via: 'self', at: t(1) },
  };
  given([aliceCreated(), changed])
    .when(login(2, true))
    .then([failed(2)]);
});

test('users without a password cannot log in with one', () => {
  given([aliceCreated({ passwordHash: null })])
    .when(login(1, true, { password: { matches: true, verifiedHash: null } }))
    .then([failed(1)]);
  given([aliceCreated({ authMethod: 'OAUTH2', passwordHash: null })])
    .when(login(1, true))
    .then([failed(1)]);
});

test('a deleted user cannot log in', () => {
  given([aliceCreated(), { type: 'UserDeleted', data: { userId: 'u1', at: t(1) } }])
    .when(login(2, true))
    .thenThrows('user_not_found');
});

test.run();
