/**
 * Span, event and resource attributes as stored in `SpansIngested` events.
 *
 * Each value keeps its OTLP type as a one-key object, because JSON alone cannot tell an int from
 * a float (`2` vs `2.0`) and the REST attribute filters select by stored type.
 * - `int` is the int64 as a decimal string: a JSON number would lose precision beyond 2^53.
 * - `float` is a JSON number, or "NaN" / "Infinity" / "-Infinity", which JSON has no number for.
 * - `bytes` is base64.
 * - `null` is an OTLP AnyValue with no value set ("empty" in the OTLP spec).
 * Keys are unique; when a sender repeats a key, the last value wins.
 */
export type AttributeValue =
  | { readonly str: string }
  | { readonly int: string }
  | { readonly float: number | 'NaN' | 'Infinity' | '-Infinity' }
  | { readonly bool: boolean }
  | { readonly bytes: string }
  | { readonly array: readonly AttributeValue[] }
  | { readonly kvlist: Attributes }
  | null;

export type Attributes = { readonly [key: string]: AttributeValue };

/** A float as stored: non-finite values become the strings OTLP/JSON also uses. */
export const floatValue = (n: number): AttributeValue => ({
  float: Number.isFinite(n) ? n : Number.isNaN(n) ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity',
});

/**
 * Builds an attribute map from key/value pairs. A plain assignment of the key `__proto__` would
 * set the object's prototype instead of adding a key, so that one key is defined explicitly.
 */
export const attributesFrom = (pairs: Iterable<readonly [string, AttributeValue]>): Attributes => {
  const out: Record<string, AttributeValue> = {};
  for (const [key, value] of pairs) {
    if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  }
  return out;
};

/** The value as a string, or undefined when the attribute is absent or not a string. */
export const stringAttribute = (attributes: Attributes, key: string): string | undefined => {
  const v = Object.hasOwn(attributes, key) ? attributes[key] : undefined;
  return v && 'str' in v ? v.str : undefined;
};
