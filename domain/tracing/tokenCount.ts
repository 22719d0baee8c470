import type { Attributes, AttributeValue } from './attributes.ts';

/**
 * A count as the `bigint` columns can hold it, whatever was sent (int64 max, 1e30,
 * "99999999999999999999"): clamped to ±(2^53 - 1), the integers a JSON number carries exactly
 * on its way to Postgres.
 */
const clamp = (n: number): number =>
  Number.isNaN(n) ? 0 : Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Math.trunc(n)));

const asCount = (v: AttributeValue | undefined): number => {
  if (v === null || v === undefined) return 0;
  if ('int' in v) return clamp(Number(v.int));
  if ('float' in v) return typeof v.float === 'number' ? clamp(v.float) : 0;
  if ('str' in v) return /^\s*-?\d+\s*$/.test(v.str) ? clamp(Number(v.str)) : 0;
  return 0;
};

/** The token count under `key` (0 when missing or unusable: not a number, NaN, a list). */
export const tokenCount = (attributes: Attributes, key: string): number =>
  asCount(Object.hasOwn(attributes, key) ? attributes[key] : undefined);
