import { DomainError } from '../errors.ts';

export type PasswordRule = {
  readonly minLength: number;
  readonly digit: boolean;
  readonly lowercase: boolean;
  readonly uppercase: boolean;
  readonly special: boolean;
};

export const SPECIAL_CHARACTERS = '!@#$%^&*()_+';

export const DEFAULT_PASSWORD_RULE: PasswordRule = { minLength: 4, digit: false, lowercase: false, uppercase: false, special: false };
/** `SERVICE_ENABLE_STRONG_PASSWORD_POLICY=true`. */
export const STRONG_PASSWORD_RULE: PasswordRule = { minLength: 12, digit: true, lowercase: true, uppercase: true, special: true };
/** `SERVICE_SECRET` / `SERVICE_ADMIN_SECRET` (checked by the config with subject e.g. "SERVICE_SECRET"). */
export const SECRET_RULE: PasswordRule = { minLength: 32, digit: true, lowercase: true, uppercase: false, special: false };

export const passwordRuleFor = (strong: boolean): PasswordRule => (strong ? STRONG_PASSWORD_RULE : DEFAULT_PASSWORD_RULE);

/** Hashing is cheap for any real password; a megabyte-long one is only a way to make us work. */
export const PASSWORD_MAX_LENGTH = 1024;

const joinProblems = (items: readonly string[]): string =>
  items.length <= 2 ? items.join(' and ') : `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;

/**
 * The first problem that makes the value unacceptable, as a sentence starting with `subject`, or
 * null. The shape checks stop at the first failure; the length and character-class checks list
 * everything missing at once ("Password must be at least 12 characters long and contain at least
 * one digit"). The reference drops the verb when only a character class is missing ("Password
 * at least one digit"); we say it in full.
 */
export const passwordProblem = (value: string, rule: PasswordRule, subject = 'Password'): string | null => {
  if (value.length === 0) return `${subject} must be non-empty`;
  if (/\s/.test(value)) return `${subject} must not contain whitespace characters`;
  if (!/^[\x00-\x7f]*$/.test(value)) return `${subject} must contain only ASCII characters`;
  if (/[\x00-\x1f\x7f]/.test(value)) return `${subject} must not contain control characters`;
  if (value.length > PASSWORD_MAX_LENGTH) return `${subject} must be at most ${PASSWORD_MAX_LENGTH} characters long`;
  const classes: string[] = [];
  if (rule.digit && !/\d/.test(value)) classes.push('at least one digit');
  if (rule.lowercase && !/[a-z]/.test(value)) classes.push('at least one lowercase letter');
  if (rule.uppercase && !/[A-Z]/.test(value)) classes.push('at least one uppercase letter');
  if (rule.special && ![...value].some((c) => SPECIAL_CHARACTERS.includes(c))) classes.push('at least one special character');
  const short = value.length < rule.minLength ? `be at least ${rule.minLength} characters long` : null;
  const contain = classes.length === 0 ? null : `contain ${joinProblems(classes)}`;
  if (short === null && contain === null) return null;
  return `${subject} must ${[short, contain].filter((part) => part !== null).join(' and ')}`;
};

/** Throws `password_policy` when the password breaks the rule. Call it before hashing. */
export const checkPassword = (password: string, rule: PasswordRule): void => {
  const problem = passwordProblem(password, rule);
  if (problem !== null) throw new DomainError('password_policy', problem, 'invalid');
};
