import type { z } from 'zod';
import { JsonAnswer, NO_CONTENT, RawAnswer, type RawBodySpec, type ResponseSpec, type Responses } from './answer.ts';
import { describeIssues } from './parseBody.ts';

/**
 * Thrown (a 500) when a handler's answer is not what its route declares: in tests and development
 * (`SERVICE_CHECK_RESPONSES`), so every HTTP spec checks the declared response schemas.
 */
export class AnswerMismatchError extends Error {
  /** Answered as it is (errorMiddleware's exposed errors): the test that hit it reads what is wrong. */
  readonly status = 500;
  readonly code = 'answer_not_declared';
  readonly expose = true;
  constructor(where: string, problem: string) {
    super(`${where} answered what it does not declare: ${problem}`);
    this.name = 'AnswerMismatchError';
  }
}

const isRawSpec = (spec: ResponseSpec): spec is RawBodySpec => !('safeParse' in spec) && spec.kind === 'raw';

/** Checks a handler's result against its route's `responses`; throws AnswerMismatchError. */
export const checkAnswer = (where: string, responses: Responses, result: unknown, defaultStatus: number): void => {
  const status = result instanceof JsonAnswer || result instanceof RawAnswer ? result.status : defaultStatus;
  const declared = responses[status];
  if (declared === undefined) throw new AnswerMismatchError(where, `status ${status} is not declared`);
  if (declared === NO_CONTENT) {
    const body = result instanceof JsonAnswer ? result.body : result;
    if (body !== undefined || result instanceof RawAnswer) throw new AnswerMismatchError(where, `status ${status} has no body`);
    return;
  }
  if (isRawSpec(declared)) {
    if (!(result instanceof RawAnswer)) throw new AnswerMismatchError(where, `status ${status} answers raw ${declared.type}`);
    if (result.type !== declared.type) throw new AnswerMismatchError(where, `status ${status} is ${declared.type}, not ${result.type}`);
    return;
  }
  if (result instanceof RawAnswer) throw new AnswerMismatchError(where, `status ${status} answers JSON, not raw ${result.type}`);
  const body = result instanceof JsonAnswer ? result.body : result;
  const checked = (declared as z.ZodType).safeParse(body);
  if (!checked.success) throw new AnswerMismatchError(where, describeIssues('response', checked.error));
};
