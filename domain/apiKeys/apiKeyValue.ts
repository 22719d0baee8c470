import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A key reads `lpk_<keyId>_<secret>`: the id finds the key's state without a search, the 256-bit
 * secret proves possession. Because the secret is random, a plain SHA-256 is enough to store (no
 * dictionary to attack) and cheap enough to check on every request, unlike argon2.
 */
export const API_KEY_PREFIX = 'lpk';

const KEY_ID = /^[A-Za-z0-9-]{1,64}$/;
const KEY = /^lpk_([A-Za-z0-9-]{1,64})_([A-Za-z0-9_-]{43})$/;

export type GeneratedApiKey = {
  readonly keyId: string;
  /** Shown once to the creator; never stored, logged or put in an event. */
  readonly value: string;
  readonly keyHash: string;
};

export const hashApiKey = (value: string): string => `sha256:${createHash('sha256').update(value, 'utf8').digest('base64url')}`;

/** A fresh key. `keyId` defaults to 128 random bits in hex; a given one must be letters, digits or `-`. */
export const generateApiKey = (keyId: string = randomBytes(16).toString('hex')): GeneratedApiKey => {
  if (!KEY_ID.test(keyId)) throw new Error(`API key id must match ${KEY_ID}: ${keyId}`);
  const value = `${API_KEY_PREFIX}_${keyId}_${randomBytes(32).toString('base64url')}`;
  return { keyId, value, keyHash: hashApiKey(value) };
};

/** The key id of something shaped like one of our keys, or null (e.g. a JWT or the admin secret). */
export const parseApiKey = (value: string): { readonly keyId: string } | null => {
  const match = KEY.exec(value);
  return match === null ? null : { keyId: match[1]! };
};

/** Constant-time comparison of the presented key's hash with the stored one. */
export const verifyApiKey = (value: string, keyHash: string): boolean => {
  const presented = Buffer.from(hashApiKey(value));
  const stored = Buffer.from(keyHash);
  return presented.length === stored.length && timingSafeEqual(presented, stored);
};
