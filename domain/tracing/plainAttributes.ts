import { floatValue, type Attributes, type AttributeValue } from './attributes.ts';

/** An attribute as OpenTelemetry's API types it (what converters written for the SDK read and write). */
export type PlainScalar = string | number | boolean;
export type PlainValue = PlainScalar | readonly PlainScalar[];
export type PlainAttributes = Record<string, PlainValue>;

/**
 * A string longer than this is not read by the GenAI conversion (it stays on the span as sent):
 * parsing a message list of many megabytes for every replay of its event would hold the projector
 * for seconds, and doubling it into OpenInference keys would double the row.
 */
export const CONVERTED_STRING_MAX_CHARS = 1 << 20;

const scalarOf = (v: AttributeValue): PlainScalar | undefined => {
  if (v === null) return undefined;
  if ('str' in v) return v.str.length > CONVERTED_STRING_MAX_CHARS ? undefined : v.str;
  if ('int' in v) return Number(v.int);
  if ('float' in v) return typeof v.float === 'number' ? v.float : undefined;
  if ('bool' in v) return v.bool;
  return undefined;
};

/** A stored value as the SDK would hold it; undefined for kvlists, bytes, nested lists and oversized strings. */
export const plainOf = (v: AttributeValue | undefined): PlainValue | undefined => {
  if (v === undefined || v === null) return undefined;
  if (!('array' in v)) return scalarOf(v);
  const items: PlainScalar[] = [];
  let chars = 0;
  for (const item of v.array) {
    const s = scalarOf(item);
    if (s === undefined) return undefined;
    if (typeof s === 'string') chars += s.length;
    items.push(s);
  }
  return chars > CONVERTED_STRING_MAX_CHARS ? undefined : items;
};

const typedScalar = (v: PlainScalar): AttributeValue =>
  typeof v === 'string' ? { str: v } : typeof v === 'boolean' ? { bool: v } : Number.isSafeInteger(v) ? { int: String(v) } : floatValue(v);

/** A plain value as stored: integers as int, other numbers as float. Anything else (a converter's stray object) is undefined. */
export const typedOf = (v: unknown): AttributeValue | undefined => {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return typedScalar(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean')) {
    return { array: v.map(typedScalar) };
  }
  return undefined;
};

/** The attributes whose key passes `wanted`, as plain values (the ones `plainOf` cannot read are left out). */
export const plainAttributes = (attributes: Attributes, wanted: (key: string) => boolean): PlainAttributes => {
  const out: PlainAttributes = {};
  for (const key of Object.keys(attributes)) {
    if (!wanted(key) || key === '__proto__') continue;
    const v = plainOf(attributes[key]);
    if (v !== undefined) out[key] = v;
  }
  return out;
};
