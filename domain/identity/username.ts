import { DomainError } from '../errors.ts';

/** A username is shown as entered (trimmed); it must not be blank. */
export const cleanUsername = (raw: string): string => {
  const username = raw.trim();
  if (username.length === 0) throw new DomainError('username_required', 'Username must be non-empty');
  return username;
};

/**
 * The key under which a username is unique. Case-insensitive on purpose: `Admin` next to `admin`
 * is a spoofing risk, and nobody needs both.
 */
export const usernameKey = (username: string): string => username.trim().normalize('NFC').toLowerCase();
