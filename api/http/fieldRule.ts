import { z } from 'zod';
import { DomainError } from '../../domain/errors.ts';
import { textProblem, type TextRule } from '../../domain/base/textRule.ts';
import { HttpError } from './httpError.ts';

/**
 * A string field checked by a domain rule at the edge, so a rule break is a 422 naming the field
 * (`body.user.username: Username must not contain control characters`) before anything is
 * appended. The deciders apply the same rules again: this is for the answer, they are for the log.
 */
export const ruledString = <T>(rule: (raw: string) => T) =>
  z.string().transform((raw, ctx): T => {
    try {
      return rule(raw);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message });
      return z.NEVER;
    }
  });

/** A string that must satisfy a text rule (characters and length); the message says what broke. */
export const plainString = (rule: TextRule) =>
  z.string().superRefine((value, ctx) => {
    const problem = textProblem(value, rule);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: `Value ${problem}` });
  });

/** Runs a domain rule for a field checked after parsing; its break is a 422 naming `field`. */
export const checkField = <T>(field: string, rule: () => T): T => {
  try {
    return rule();
  } catch (error) {
    if (error instanceof DomainError) throw new HttpError(422, error.code, `${field}: ${error.message}`);
    throw error;
  }
};
