import { DomainError } from '../errors.ts';
import { textProblem } from '../base/textRule.ts';

/** Emails are compared and stored trimmed and lower-cased, wherever they come from. */
export const normaliseEmail = (raw: string): string => raw.trim().toLowerCase();

/** The longest address SMTP can carry (RFC 5321: a 256-octet path less its angle brackets). */
export const EMAIL_MAX_LENGTH = 254;

// The reference accepts any `local@domain.tld` without whitespace; stricter rules would refuse
// addresses its clients create (e.g. `admin@localhost` is built in and never validated).
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** Why an (already normalised) email cannot be stored, whatever its format: characters and length. */
export const emailTextProblem = (email: string): string | null => {
  const problem = textProblem(email, { maxLength: EMAIL_MAX_LENGTH });
  return problem === null ? null : `Email ${problem}`;
};

export const isValidEmail = (email: string): boolean => EMAIL.test(email) && emailTextProblem(email) === null;

/**
 * A user's email, normalised, or `email_invalid`. Built-in addresses (`admin@localhost`) have no
 * dot in the domain and are ours, so only their characters and length are checked.
 */
export const cleanEmail = (raw: string, options: { readonly builtIn?: boolean } = {}): string => {
  const email = normaliseEmail(raw);
  const problem = emailTextProblem(email);
  if (problem !== null) throw new DomainError('email_invalid', problem, 'invalid');
  if (options.builtIn !== true && !isValidEmail(email)) throw new DomainError('email_invalid', `Invalid email: ${email}`, 'invalid');
  return email;
};
