import type { LockoutSettings } from './commands.ts';
import { lockedUntil } from './lockout.ts';

/**
 * Failed logins for emails that have no account, counted like a real account's so that lockout
 * does not tell who has one: after `maxAttempts` failures an unknown email answers 429 for the
 * same five minutes, exactly when an existing one would.
 *
 * Kept in memory, per process, on purpose: an account's count lives on its stream (shared by
 * every process, surviving restarts), but writing an event for every address an attacker makes
 * up would let them grow the log without bound. With several processes behind a balancer an
 * unknown email therefore locks a little later than a real one; on a single process (the common
 * case) the answers are the same. Bounded: the oldest entries are forgotten first.
 */
export type UnknownAccountLockout = {
  readonly isLocked: (email: string, now: string, lockout: LockoutSettings) => boolean;
  readonly recordFailure: (email: string, now: string, lockout: LockoutSettings) => void;
};

type Count = { readonly failures: number; readonly lockedUntil: string | null };

export const createUnknownAccountLockout = (maxEmails = 10_000): UnknownAccountLockout => {
  const counts = new Map<string, Count>();
  const remember = (email: string, count: Count) => {
    counts.delete(email);
    counts.set(email, count);
    if (counts.size > maxEmails) counts.delete(counts.keys().next().value!);
  };
  return {
    isLocked: (email, now, lockout) => {
      const until = counts.get(email)?.lockedUntil ?? null;
      return lockout.enabled && until !== null && Date.parse(now) < Date.parse(until);
    },
    // The same rule as the user decider: the failure that reaches the limit locks and restarts the count.
    recordFailure: (email, now, lockout) => {
      if (!lockout.enabled) return;
      const count = counts.get(email) ?? { failures: 0, lockedUntil: null };
      const failures = count.failures + 1;
      remember(
        email,
        failures >= lockout.maxAttempts ? { failures: 0, lockedUntil: lockedUntil(now) } : { failures, lockedUntil: count.lockedUntil },
      );
    },
  };
};
