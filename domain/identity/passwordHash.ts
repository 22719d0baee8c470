import { DomainError } from '../errors.ts';

/**
 * Guards every event that stores a password hash: what arrives must be an argon2id PHC string,
 * so a plaintext password passed by mistake is refused instead of written to the log forever.
 */
export const assertPasswordHash = (value: string): string => {
  if (!/^\$argon2id\$v=\d+\$[a-z]=\d+(,[a-z]=\d+)*\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.test(value)) {
    throw new DomainError('password_hash_invalid', 'Expected an argon2id hash, not a password', 'invalid');
  }
  return value;
};
