import type { Attributes, AttributeValue } from './events.ts';

export type { Attributes, AttributeValue } from './events.ts';

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
