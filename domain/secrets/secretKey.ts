import { DomainError } from '../errors.ts';
import { hasLoneSurrogate } from '../base/textRule.ts';

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A name is the secrets table's primary key: a btree entry, which holds ~2.7 KB at most. */
export const SECRET_KEY_MAX_LENGTH = 256;

/**
 * Every value lives sealed in the one `secrets` stream, which each change reads back whole: room
 * for any credential or certificate, not for files.
 */
export const SECRET_VALUE_MAX_LENGTH = 65_536;

/** A secret's name, trimmed: an environment-variable-like identifier (`OPENAI_API_KEY`). */
export const cleanSecretKey = (raw: string): string => {
  const key = raw.trim();
  if (key === '') throw new DomainError('secret_key_invalid', 'Key cannot be empty', 'invalid');
  if (key.length > SECRET_KEY_MAX_LENGTH) {
    throw new DomainError('secret_key_invalid', `Key must be at most ${SECRET_KEY_MAX_LENGTH} characters long`, 'invalid');
  }
  if (!KEY.test(key)) {
    throw new DomainError(
      'secret_key_invalid',
      'Key must start with a letter or underscore and contain only letters, digits, and underscores',
      'invalid',
    );
  }
  return key;
};

/**
 * A value to store, trimmed; blank is refused (use null to delete). It is sealed before it is
 * stored, so any character is safe in the log; an unpaired surrogate, though, has no UTF-8 form
 * and would come back as U+FFFD: refused rather than silently changed.
 */
export const cleanSecretValue = (raw: string): string => {
  const value = raw.trim();
  if (value === '') throw new DomainError('secret_value_empty', 'Value cannot be empty', 'invalid');
  if (value.length > SECRET_VALUE_MAX_LENGTH) {
    throw new DomainError('secret_value_invalid', `Value must be at most ${SECRET_VALUE_MAX_LENGTH} characters long`, 'invalid');
  }
  if (hasLoneSurrogate(value))
    throw new DomainError('secret_value_invalid', 'Value must be valid Unicode text (it holds an unpaired UTF-16 surrogate)', 'invalid');
  return value;
};
