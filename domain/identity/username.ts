import { DomainError } from '../errors.ts';
import { textProblem } from '../base/textRule.ts';

/** Room for any real name; far below what a btree entry (the users listing, its search) can hold. */
export const USERNAME_MAX_LENGTH = 128;

/** Why a username cannot be used as given (after trimming), or null. */
export const usernameProblem = (raw: string): string | null => {
  const username = raw.trim();
  if (username.length === 0) return 'Username must be non-empty';
  const problem = textProblem(username, { maxLength: USERNAME_MAX_LENGTH });
  return problem === null ? null : `Username ${problem}`;
};

/** A username is shown as entered (trimmed); it must not be blank, over-long or hold control characters. */
export const cleanUsername = (raw: string): string => {
  const problem = usernameProblem(raw);
  if (problem !== null) throw new DomainError(raw.trim() === '' ? 'username_required' : 'username_invalid', problem);
  return raw.trim();
};

/**
 * The key under which a username is unique. Case-insensitive on purpose: `Admin` next to `admin`
 * is a spoofing risk, and nobody needs both.
 */
export const usernameKey = (username: string): string => username.trim().normalize('NFC').toLowerCase();
