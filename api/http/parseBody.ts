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
export const parseBody = <T extends z.ZodType>(ctx: Koa.Context, schema: T): z.infer<T> =>
  checkedBody(schema, (ctx.request as { body?: unknown }).body);

/**
 * The same check for a route declaring `body: 'json'` that must look at something else first
 * (who asks, the resource) before it may say what is wrong with the body.
 */
export const checkedBody = <T extends z.ZodType>(schema: T, body: unknown): z.infer<T> => {
  const result = schema.safeParse(body);
  if (!result.success) throw new HttpError(422, 'invalid_body', describeIssues('body', result.error));
  return result.data;
};

/** Validates query parameters: 422 naming the parameter. */
export const parseQuery = <T extends z.ZodType>(ctx: Koa.Context, schema: T): z.infer<T> => {
  const result = schema.safeParse(ctx.query);
  if (!result.success) throw new HttpError(422, 'invalid_query', describeIssues('query', result.error));
  return result.data;
};

/** Validates path parameters: 422 naming the parameter (`path.label_id: ...`). */
export const parseParams = <T extends z.ZodType>(ctx: Koa.Context, schema: T): z.infer<T> => {
  const result = schema.safeParse(ctx.params ?? {});
  if (!result.success) throw new HttpError(422, 'invalid_parameter', describeIssues('path', result.error));
  return result.data;
};
