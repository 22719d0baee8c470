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

const joinProblems = (items: readonly string[]): string =>
  items.length === 1 ? items[0]! : `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;

/**
 * The first problem that makes the value unacceptable, as a sentence starting with `subject`, or
 * null. The wording follows the reference server, whose clients show it verbatim: the shape
 * checks stop at the first failure; the character-class checks list everything missing at once.
 */
export const passwordProblem = (value: string, rule: PasswordRule, subject = 'Password'): string | null => {
  if (value.length === 0) return `${subject} must be non-empty`;
  if (/\s/.test(value)) return `${subject} must not contain whitespace characters`;
  if (!/^[\x00-\x7f]*$/.test(value)) return `${subject} must contain only ASCII characters`;
  const missing: string[] = [];
  if (value.length < rule.minLength) missing.push(`must be at least ${rule.minLength} characters long`);
  if (rule.digit && !/\d/.test(value)) missing.push('at least one digit');
  if (rule.lowercase && !/[a-z]/.test(value)) missing.push('at least one lowercase letter');
  if (rule.uppercase && !/[A-Z]/.test(value)) missing.push('at least one uppercase letter');
  if (rule.special && ![...value].some((c) => SPECIAL_CHARACTERS.includes(c))) missing.push('at least one special character');
  return missing.length === 0 ? null : `${subject} ${joinProblems(missing)}`;
};

/** Throws `password_policy` when the password breaks the rule. Call it before hashing. */
export const checkPassword = (password: string, rule: PasswordRule): void => {
  const problem = passwordProblem(password, rule);
  if (problem !== null) throw new DomainError('password_policy', problem, 'invalid');
};
