import { z } from 'zod';
import { EARLIEST_STORABLE_MS as EARLIEST, LATEST_STORABLE_MS as LATEST } from '../../domain/base/storableTime.ts';

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

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** A UTC offset in minutes as Python accepts it (strictly less than 24 hours, minutes below 60), or null. */
const offsetMinutes = (zone: string | undefined): number | null => {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const [hours, minutes] = [Number(digits.slice(0, 2)), Number(digits.slice(2) || '0')];
  if (hours >= 24 || minutes >= 60) return null;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
};

/** Every field in range (JS dates roll 02-30 over to March; Postgres refuses it, which would be a 500). */
const inRange = (year: number, month: number, day: number, hour: number, minute: number, second: number): boolean => {
  const probe = new Date(0);
  probe.setUTCFullYear(year, month, 0);
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= probe.getUTCDate() && hour < 24 && minute < 60 && second < 60;
};

/**
 * An ISO-8601 time as a UTC timestamp for Postgres, with microseconds. One without a zone is UTC
 * (docs/reference/rest-facts.md §0.6). The offset is applied here rather than by Postgres, which
 * refuses offsets beyond ±15:59 that Python accepts (a 500 otherwise); a time before year 1 or
 * after 9999 once in UTC is clamped to that range, which changes no filter (spans lie in 1970–2554).
 */
export const isoTimeParam = single.transform((v, ctx) => {
  if (v === undefined || v === '') return undefined;
  const m = ISO.exec(v.trim());
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m?.[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offset = m ? offsetMinutes(m[8]) : null;
  if (!m || offset === null || !inRange(year, month, day, hour, minute, second)) {
    ctx.addIssue({ code: 'custom', message: `"${v.length > 100 ? `${v.slice(0, 100)}…` : v}" is not an ISO-8601 date-time` });
    return z.NEVER;
  }
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, 0);
  const ms = Math.min(LATEST, Math.max(EARLIEST, local.getTime() - offset * 60_000));
  const micros = ms === LATEST ? '999999' : ms === EARLIEST ? '000000' : (m[7] ?? '').padEnd(6, '0').slice(0, 6);
  return `${new Date(ms).toISOString().slice(0, 19)}.${micros}Z`;
});

export const enumParam = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  single.transform((v, ctx) => {
    if (v === undefined) return fallback;
    if ((values as readonly string[]).includes(v)) return v as T[number];
    ctx.addIssue({ code: 'custom', message: `must be one of ${values.join(', ')}, got "${v}"` });
    return z.NEVER;
  });
