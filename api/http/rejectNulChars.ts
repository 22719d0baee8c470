import type Koa from 'koa';
import { HttpError } from './httpError.ts';

const NUL = '\u0000';

const hasNul = (v: unknown): boolean => (typeof v === 'string' ? v.includes(NUL) : Array.isArray(v) && v.some(hasNul));

/**
 * Postgres cannot hold U+0000 in text or jsonb: a `%00` in a path or query parameter would make
 * the query fail with a 500. Refused up front as a 422 naming the parameter.
 */
export const rejectNulChars = (ctx: Koa.Context): void => {
  for (const [where, values] of [
    ['path', ctx.params as Record<string, unknown>],
    ['query', ctx.query as Record<string, unknown>],
  ] as const) {
    for (const [name, value] of Object.entries(values ?? {})) {
      if (hasNul(value) || name.includes(NUL))
        throw new HttpError(422, 'invalid_parameter', `${where}.${name.replaceAll(NUL, '\\0')}: must not contain NUL characters`);
    }
  }
};

/** For zod string fields of request bodies. */
export const withoutNul = (s: string): boolean => !s.includes(NUL);
