import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../domain/errors.ts';
import {
  checkPassword,
  DEFAULT_PASSWORD_RULE,
  passwordProblem,
  SECRET_RULE,
  STRONG_PASSWORD_RULE,
} from '../../../domain/identity/passwordPolicy.ts';

test('the default policy asks for four characters', () => {
  assert.is(passwordProblem('abcd', DEFAULT_PASSWORD_RULE), null);
  assert.is(passwordProblem('abc', DEFAULT_PASSWORD_RULE), 'Password must be at least 4 characters long');
});

test('empty, whitespace and non-ASCII are refused under any policy', () => {
  assert.is(passwordProblem('', DEFAULT_PASSWORD_RULE), 'Password must be non-empty');
  assert.is(passwordProblem('abc def', DEFAULT_PASSWORD_RULE), 'Password must not contain whitespace characters');
  assert.is(passwordProblem('pässword', DEFAULT_PASSWORD_RULE), 'Password must contain only ASCII characters');
  assert.is(passwordProblem('pass\u0000word', DEFAULT_PASSWORD_RULE), 'Password must not contain control characters');
});

test('a password longer than 1024 characters is refused before anyone hashes it', () => {
  assert.is(passwordProblem('a'.repeat(1024), DEFAULT_PASSWORD_RULE), null);
  assert.is(passwordProblem('a'.repeat(1025), DEFAULT_PASSWORD_RULE), 'Password must be at most 1024 characters long');
});

test('the strong policy lists everything missing at once', () => {
  assert.is(passwordProblem('Abcdefgh1!xy', STRONG_PASSWORD_RULE), null);
  assert.is(
    passwordProblem('abc', STRONG_PASSWORD_RULE),
    'Password must be at least 12 characters long and contain at least one digit, at least one uppercase letter, and at least one special character',
  );
  assert.is(passwordProblem('ABCDEFGHIJK1+', STRONG_PASSWORD_RULE), 'Password must contain at least one lowercase letter');
  assert.is(passwordProblem('Abcdefghijk1', STRONG_PASSWORD_RULE), 'Password must contain at least one special character');
  assert.is(
    passwordProblem('abcdefghijk1', STRONG_PASSWORD_RULE),
    'Password must contain at least one uppercase letter and at least one special character',
  );
});

test('only the listed characters count as special', () => {
  for (const c of '!@#$%^&*()_+') assert.is(passwordProblem(`Abcdefghijk1${c}`, STRONG_PASSWORD_RULE), null, c);
  assert.is(passwordProblem('Abcdefghijk1-', STRONG_PASSWORD_RULE), 'Password must contain at least one special character');
});

test('the server-secret rule takes a subject', () => {
  assert.is(passwordProblem('a'.repeat(32), SECRET_RULE, 'SERVICE_SECRET'), 'SERVICE_SECRET must contain at least one digit');
});

test('checkPassword throws the policy message', () => {
  try {
    checkPassword('abc', DEFAULT_PASSWORD_RULE);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, 'password_policy');
    assert.is((error as DomainError).message, 'Password must be at least 4 characters long');
  }
});

test.run();
