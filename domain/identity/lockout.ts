import type { LockoutSettings } from './commands.ts';
import type { UserState } from './userState.ts';

/** Fixed by the specification; only the attempt count is configurable. */
export const LOCKOUT_DURATION_MS = 5 * 60 * 1000;

export const DEFAULT_LOCKOUT: LockoutSettings = { enabled: true, maxAttempts: 5 };

export const LOCKED_MESSAGE = 'Too many failed login attempts. Please try again later.';

/**
 * Whether a login must be refused right now. The API asks this before spending an argon2
 * verification; the decider asks it again on the state it appends against.
 */
export const isLocked = (state: UserState, now: string, lockout: LockoutSettings): boolean =>
  lockout.enabled && state.lockedUntil !== null && Date.parse(now) < Date.parse(state.lockedUntil);

export const lockedUntil = (now: string): string => new Date(Date.parse(now) + LOCKOUT_DURATION_MS).toISOString();
