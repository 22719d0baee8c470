import type Koa from 'koa';
import type { z } from 'zod';
import { HttpError } from './httpError.ts';

/** Names the first offending field, e.g. `body.data.0.name: Required`. */
export const describeIssues = (where: string, error: z.ZodError): string =>
  error.issues
    .slice(0, 5)
    .map((issue) => `${[where, ...issue.path.map(String)].join('.')}: ${issue.message}`)
    .join('; ');

/** Validates the parsed JSON body at the edge: 422 naming the field when it does not fit. */
export const parseBody = <T extends z.ZodType>(ctx: Koa.Context, schema: T): z.infer<T> => {
  const result = schema.safeParse((ctx.request as { body?: unknown }).body);
  if (!result.success) throw new HttpError(422, 'invalid_body', describeIssues('body', result.error));
  return result.data;
};

/** Validates query parameters: 422 naming the parameter. */
export const parseQuery = <T extends z.ZodType>(ctx: Koa.Context, schema: T): z.infer<T> => {
  const result = schema.safeParse(ctx.query);
  if (!result.success) throw new HttpError(422, 'invalid_query', describeIssues('query', result.error));
  return result.data;
};
