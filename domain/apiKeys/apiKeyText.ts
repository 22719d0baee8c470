import { DomainError } from '../errors.ts';
import { textProblem } from '../base/textRule.ts';
import { LATEST_STORABLE_MS as LATEST_EXPIRY } from '../base/storableTime.ts';

export const API_KEY_NAME_MAX_LENGTH = 256;
export const API_KEY_DESCRIPTION_MAX_LENGTH = 4096;

/** A key's name, trimmed: required, one line, short enough to list. */
export const cleanApiKeyName = (raw: string): string => {
  const name = raw.trim();
  if (name === '') throw new DomainError('api_key_name_required', 'Name cannot be empty', 'invalid');
  const problem = textProblem(name, { maxLength: API_KEY_NAME_MAX_LENGTH });
  if (problem !== null) throw new DomainError('api_key_name_invalid', `Name ${problem}`, 'invalid');
  return name;
};

/** Free text; may span lines. */
export const checkApiKeyDescription = (description: string | null): string | null => {
  const problem = description === null ? null : textProblem(description, { maxLength: API_KEY_DESCRIPTION_MAX_LENGTH, multiline: true });
  if (problem !== null) throw new DomainError('api_key_description_invalid', `Description ${problem}`, 'invalid');
  return description;
};

/** An expiry must be a real instant after `now`, and one the read models can store. */
export const checkApiKeyExpiry = (expiresAt: string | null, now: string): string | null => {
  if (expiresAt === null) return null;
  const ms = Date.parse(expiresAt);
  if (Number.isNaN(ms)) throw new DomainError('api_key_expiry_invalid', 'Invalid datetime', 'invalid');
  if (!(ms > Date.parse(now))) throw new DomainError('api_key_expiry_past', 'Expiry must be in the future', 'invalid');
  if (ms > LATEST_EXPIRY) throw new DomainError('api_key_expiry_invalid', 'Expiry must be before the year 10000', 'invalid');
  return new Date(ms).toISOString();
};

/**
 * The expiry a read model stores for an issued key: the decider now refuses anything past
 * 9999, but an older event may hold one (`+020000-...`) that Postgres cannot parse, which would
 * stop the read model. Such a key keeps working until the end of 9999; an unreadable expiry
 * counts as expired when issued.
 */
export const storedApiKeyExpiry = (expiresAt: string | null, issuedAt: string): string | null => {
  if (expiresAt === null) return null;
  const ms = Date.parse(expiresAt);
  if (Number.isNaN(ms)) return issuedAt;
  return new Date(Math.min(ms, LATEST_EXPIRY)).toISOString();
};
