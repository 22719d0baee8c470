import { sql, type FragmentSqlToken } from 'slonik';
import type { JsonObject, JsonScalar, JsonValue } from '../../domain/base/jsonValue.ts';

/**
 * Attributes whose JSON value is at most this many bytes go into `spans.attribute_index` too.
 * Span attributes carry kilobytes of prompt and completion text, so a GIN index on the whole
 * document gives the planner no usable statistics and every recheck detoasts ~5 KB; the small
 * values (ids, model names, tiers, flags) fit inline in a few hundred bytes (BENCHMARKS.md §2).
 */
export const ATTRIBUTE_INDEX_MAX_VALUE_BYTES = 256;

/**
 * The attribute_index of a row, from its attributes, in SQL: the projector and the migration that
 * fills existing rows use this one expression, so live rows and rebuilt rows are identical.
 */
export const attributeIndexOf = (attributes: string): string =>
  `(SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) FROM jsonb_each(${attributes}) e ` +
  `WHERE octet_length(e.value::text) <= ${ATTRIBUTE_INDEX_MAX_VALUE_BYTES})`;

/**
 * The byte length of a JSON value as Postgres prints a jsonb value (`value::text`), or `Infinity`
 * once it is past `limit`: ", " and ": " between members, strings escaped as JSON.stringify escapes
 * them (the same characters, the same \u00xx form), and numbers as `numeric` prints what
 * JSON.stringify wrote (exponents written out: 1e+21 is 22 digits, 1.5e-7 is 0.00000015).
 */
export const jsonbTextBytes = (value: JsonValue, limit: number): number => {
  if (typeof value === 'string') return value.length > limit ? Number.POSITIVE_INFINITY : Buffer.byteLength(JSON.stringify(value));
  if (typeof value === 'number') return numericTextLength(JSON.stringify(value));
  if (typeof value === 'boolean' || value === null) return String(value).length;
  let bytes = 2;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      bytes += (i > 0 ? 2 : 0) + jsonbTextBytes(item, limit - bytes);
      if (bytes > limit) return Number.POSITIVE_INFINITY;
    }
    return bytes;
  }
  let first = true;
  for (const [key, item] of Object.entries(value)) {
    bytes += (first ? 0 : 2) + Buffer.byteLength(JSON.stringify(key)) + 2 + jsonbTextBytes(item, limit - bytes);
    first = false;
    if (bytes > limit) return Number.POSITIVE_INFINITY;
  }
  return bytes;
};

/** The length of `numeric`'s text for a number JSON.stringify wrote ("-1.5e-7" → "-0.00000015"). */
const numericTextLength = (text: string): number => {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (match === null) return text.length; // "null" for a non-finite number; rendering never stores one
  const [, sign = '', whole = '', fraction = '', exponentText] = match;
  if (exponentText === undefined) return text.length;
  const exponent = Number(exponentText);
  const digits = whole + fraction;
  const point = whole.length + exponent; // where the decimal point falls in `digits`
  const body = point <= 0 ? 2 - point + digits.length : point >= digits.length ? point : digits.length + 1;
  return sign.length + body;
};

/**
 * The attribute_index of a row, built where the row is built: the attributes whose value Postgres
 * prints in at most ATTRIBUTE_INDEX_MAX_VALUE_BYTES bytes. The same rows as `attributeIndexOf`
 * computes in SQL (the migration's expression; a test compares the two on awkward values).
 */
export const attributeIndexObject = (attributes: JsonObject): JsonObject => {
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (jsonbTextBytes(value, ATTRIBUTE_INDEX_MAX_VALUE_BYTES) > ATTRIBUTE_INDEX_MAX_VALUE_BYTES) continue;
    if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  }
  return out;
};

/**
 * Whether Postgres renders this value in at most the index's byte limit. A string or a boolean
 * is rendered as JSON.stringify does (same escapes); a number is re-rendered by Postgres' numeric
 * (1e21 becomes 22 digits), so only plain decimal notation is trusted. A margin covers the rest.
 */
const fitsIndex = (value: JsonScalar): boolean => {
  if (typeof value === 'number' && /e/i.test(String(value))) return false;
  return Buffer.byteLength(JSON.stringify(value)) <= ATTRIBUTE_INDEX_MAX_VALUE_BYTES - 32;
};

/**
 * `attributes @> {key: value}`, through the small attribute_index when the value fits there
 * (exact: an equal stored value has the same size, so it is in the index), else on the full
 * document. Attribute keys are flat (`llm.model_name`) and filter values scalars.
 */
export const attributeMatches = (alias: string, key: string, value: JsonScalar): FragmentSqlToken => {
  const wanted = JSON.stringify({ [key]: value });
  return fitsIndex(value)
    ? sql.fragment`${sql.identifier([alias, 'attribute_index'])} @> ${wanted}::jsonb`
    : sql.fragment`${sql.identifier([alias, 'attributes'])} @> ${wanted}::jsonb`;
};
