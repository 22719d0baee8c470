import { DomainError } from '../errors.ts';

/**
 * The one rule for every time a command or query takes: an instant from 0001-01-01 to 9999-12-31
 * (UTC). Both stores take it without complaint — PostgreSQL's timestamptz refuses year 0 (SQLSTATE
 * 22008) — and JavaScript writes it back in the four-digit ISO form every reader parses
 * (`+099999-…` would not be). A time outside it is a client error naming the field at the edge, and
 * a read model leaves an event carrying one (already in a log) without effect instead of stopping.
 */
export const EARLIEST_STORABLE_MS = Date.parse('0001-01-01T00:00:00.000Z');
export const LATEST_STORABLE_MS = Date.parse('9999-12-31T23:59:59.999Z');

export const STORABLE_TIME_RULE = 'an ISO 8601 time from 0001-01-01 to 9999-12-31 (UTC)';

/** Whether epoch milliseconds lie in the storable range. */
export const isStorableMs = (ms: number): boolean => Number.isFinite(ms) && ms >= EARLIEST_STORABLE_MS && ms <= LATEST_STORABLE_MS;

/** A time as UTC ISO text (`Date#toISOString`), or null when it is no time or not a storable one. */
export const storableTime = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return isStorableMs(ms) ? new Date(ms).toISOString() : null;
};

/**
 * A command's time, normalised to UTC; otherwise a DomainError whose message starts with the wire
 * field when one is given (`effective_from: must be …`), so whoever reads it knows which.
 */
export const checkStorableTime = (field: string | null, value: string, code = 'invalid_time'): string => {
  const time = storableTime(value);
  if (time === null)
    throw new DomainError(code, `${field === null ? '' : `${field}: `}must be ${STORABLE_TIME_RULE}, got "${String(value).slice(0, 64)}"`);
  return time;
};

/**
 * For a read model applying a time already in a log: the time moved into the storable range
 * (year 0 → 0001-01-01, year 99999 → the end of 9999), so a bound keeps its direction; null when
 * it is no time at all.
 */
export const clampedStorableTime = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return null;
  return new Date(Math.min(LATEST_STORABLE_MS, Math.max(EARLIEST_STORABLE_MS, ms))).toISOString();
};
