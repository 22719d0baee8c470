import { DomainError } from '../../../domain/errors.ts';
import { gqlError } from '../graphqlError.ts';

/** Postgres text cannot hold U+0000; REST refuses it too (rejectNulChars), naming the field. */
export const noNul = (value: string, argument: string): string => {
  if (value.includes('\u0000')) throw gqlError('invalid_input', `Argument "${argument}" must not contain NUL characters`);
  return value;
};

/** Runs a domain rule on an argument; its break is an error naming the argument (as REST's 422 names the field). */
export const checkArg = <T>(argument: string, rule: () => T): T => {
  try {
    return rule();
  } catch (error) {
    if (error instanceof DomainError) throw gqlError(error.code, `Argument "${argument}": ${error.message}`, 422);
    throw error;
  }
};
