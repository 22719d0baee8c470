import { z } from 'zod';

/** A repeatable query parameter (`?a=1&a=2`) as a list, whether it came once or several times. */
export const repeated = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]));

/** A single-valued parameter: sent twice, the last one counts (as FastAPI does). */
export const single = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (Array.isArray(v) ? v.at(-1) : v));

const TRUE = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE = new Set(['false', '0', 'no', 'off', 'f', 'n']);

/** Booleans spelled as FastAPI accepts them. */
export const boolParam = (fallback: boolean) =>
  single.transform((v, ctx) => {
    if (v === undefined) return fallback;
    const key = v.trim().toLowerCase();
    if (TRUE.has(key)) return true;
    if (FALSE.has(key)) return false;
    ctx.addIssue({ code: 'custom', message: `"${v}" is not a boolean` });
    return z.NEVER;
  });

/** An integer in [1, max] with a default. */
export const limitParam = (fallback: number, max = Number.MAX_SAFE_INTEGER) =>
  single.transform((v, ctx) => {
    if (v === undefined) return fallback;
    const n = /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < 1 || n > max) {
      ctx.addIssue({ code: 'custom', message: `must be an integer from 1 to ${max}, got "${v}"` });
      return z.NEVER;
    }
    return n;
  });

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Every field in range (JS dates roll 02-30 over to March; Postgres refuses it, which would be a 500). */
const inRange = (m: RegExpExecArray): boolean => {
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [number, number, number, number, number, number];
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= days && hour < 24 && minute < 60 && second < 60;
};

/**
 * An ISO-8601 time for Postgres; one without a zone is UTC (rest-facts §0.6), so the zone is
 * made explicit rather than left to the database session's time zone.
 */
export const isoTimeParam = single.transform((v, ctx) => {
  if (v === undefined || v === '') return undefined;
  const m = ISO.exec(v.trim());
  if (!m || !inRange(m)) {
    ctx.addIssue({ code: 'custom', message: `"${v}" is not an ISO-8601 date-time` });
    return z.NEVER;
  }
  return m[7] ? v.trim() : `${v.trim()}${m[4] === undefined ? 'T00:00:00' : ''}Z`;
});

export const enumParam = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  single.transform((v, ctx) => {
    if (v === undefined) return fallback;
    if ((values as readonly string[]).includes(v)) return v as T[number];
    ctx.addIssue({ code: 'custom', message: `must be one of ${values.join(', ')}, got "${v}"` });
    return z.NEVER;
  });
