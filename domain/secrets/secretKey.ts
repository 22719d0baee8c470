import { DomainError } from '../errors.ts';

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A secret's name, trimmed: an environment-variable-like identifier (`OPENAI_API_KEY`). */
export const cleanSecretKey = (raw: string): string => {
  const key = raw.trim();
  if (key === '') throw new DomainError('secret_key_invalid', 'Key cannot be empty', 'invalid');
  if (!KEY.test(key)) {
    throw new DomainError('secret_key_invalid', 'Key must start with a letter or underscore and contain only letters, digits, and underscores', 'invalid');
  }
  return key;
};

/** A value to store, trimmed; blank is refused (use null to delete). */
export const cleanSecretValue = (raw: string): string => {
  const value = raw.trim();
  if (value === '') throw new DomainError('secret_value_empty', 'Value cannot be empty', 'invalid');
  return value;
};
