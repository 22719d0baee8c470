import type { Attributes, AttributeValue } from './attributes.ts';
import type { JsonObject, JsonValue } from '../base/jsonValue.ts';
import { MAX_DEPTH, storableText, TOO_DEEP } from '../base/storableText.ts';

/**
 * Span attributes as Phoenix shows them over REST (docs/reference/rest-facts.md §1.4, §5.1): flat dotted keys with
 * plain JSON values. Phoenix gets there by unflattening at ingest and flattening on read; the
 * round trip's visible effects are reproduced here once, at projection time, so reads and the
 * attribute filters work on exactly what clients see:
 * - a value under a key ending in `metadata`, `tool.parameters`, `llm.prompt_template.variables`
 *   (or `document.metadata`) that is a JSON object in a string is expanded into dotted keys;
 * - nested values (kvlists, lists of objects) become dotted keys, list items by index;
 * - lists of scalars stay JSON arrays; empty values (null) are left out;
 * - `llm.token_count.*` given as digit strings become integers;
 * - a non-string `input.value` / `output.value` becomes its JSON text with mime type application/json.
 * `bytes` become their base64 text, and non-finite floats the strings "NaN"/"Infinity"/"-Infinity".
 *
 * The attributes come in storable (`storable.ts`: bounded depth, no U+0000); what a JSON string
 * expands into is not, so its keys and strings are cleaned the same way and its nesting is cut at
 * MAX_DEPTH levels (the rest becomes the text TOO_DEEP): a metadata string of 50,000 nested
 * objects must neither overflow the stack here nor reach a jsonb column.
 */
const JSON_STRING_KEYS = ['metadata', 'tool.parameters', 'llm.prompt_template.variables'];
const IO_KEYS: Record<string, string> = { 'input.value': 'input.mime_type', 'output.value': 'output.mime_type' };
const INTEGER = /^\s*-?\d+\s*$/;

type Out = Record<string, JsonValue>;

const put = (out: Out, key: string, value: JsonValue): void => {
  // A plain assignment to "__proto__" would set the prototype instead of adding the key.
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A typed value as plain JSON (kvlists as objects), for values kept whole. */
export const plainValue = (v: AttributeValue): JsonValue => {
  if (v === null) return null;
  if ('str' in v) return v.str;
  if ('int' in v) return Number(v.int);
  if ('float' in v) return v.float;
  if ('bool' in v) return v.bool;
  if ('bytes' in v) return v.bytes;
  if ('array' in v) return v.array.map(plainValue);
  const obj: Out = {};
  for (const [k, x] of Object.entries(v.kvlist)) put(obj, k, plainValue(x));
  return obj;
};

/** A value kept whole (a list of scalars, say), with its strings cleaned and its nesting bounded. */
const boundedJson = (v: unknown, depth: number): JsonValue => {
  if (typeof v === 'string') return storableText(v);
  if (v === null || typeof v !== 'object') return v as JsonValue;
  if (depth > MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(v)) return v.map((x) => boundedJson(x, depth + 1));
  const obj: Out = {};
  for (const [k, x] of Object.entries(v)) put(obj, storableText(k), boundedJson(x, depth + 1));
  return obj;
};

const flattenJson = (out: Out, key: string, v: unknown, depth: number): void => {
  if (v === null || v === undefined) return;
  if (depth > MAX_DEPTH) {
    put(out, key, TOO_DEEP);
    return;
  }
  if (Array.isArray(v)) {
    if (v.some(isObject)) {
      // Lists of objects are exploded by index; scalars mixed into such a list are dropped.
      v.forEach((item, i) => isObject(item) && flattenJson(out, `${key}.${i}`, item, depth + 1));
    } else {
      put(out, key, boundedJson(v, depth));
    }
    return;
  }
  if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) flattenJson(out, `${key}.${storableText(k)}`, x, depth + 1);
    return;
  }
  put(out, key, boundedJson(v, depth));
};

const holdsJsonString = (key: string): boolean => JSON_STRING_KEYS.some((suffix) => key === suffix || key.endsWith(`.${suffix}`));

const parsedObject = (text: string): Record<string, unknown> | null => {
  if (!text.trimStart().startsWith('{')) return null;
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
};

const renderOne = (out: Out, key: string, v: AttributeValue): void => {
  if (v === null) return;
  if ('str' in v) {
    const parsed = holdsJsonString(key) ? parsedObject(v.str) : null;
    if (parsed) flattenJson(out, key, parsed, 1);
    else if (key.startsWith('llm.token_count.') && INTEGER.test(v.str)) put(out, key, Number(v.str));
    else put(out, key, v.str);
    return;
  }
  flattenJson(out, key, plainValue(v), 1);
};

export const renderAttributes = (attributes: Attributes): JsonObject => {
  const out: Out = {};
  for (const [key, v] of Object.entries(attributes)) {
    const mimeKey = IO_KEYS[key];
    if (mimeKey !== undefined && v !== null && !('str' in v)) {
      put(out, key, JSON.stringify(plainValue(v)));
      put(out, mimeKey, 'application/json');
      continue;
    }
    if (mimeKey === undefined && Object.values(IO_KEYS).includes(key) && Object.hasOwn(out, key)) continue;
    renderOne(out, key, v);
  }
  return out;
};

const EXCEPTION_KEYS = ['exception.type', 'exception.message', 'exception.escaped', 'exception.stacktrace'];

/**
 * Event attributes stay flat as sent (Phoenix does not unflatten them); `exception` events keep
 * only the four exception keys.
 */
export const renderEventAttributes = (name: string, attributes: Attributes): JsonObject => {
  const out: Out = {};
  for (const [key, v] of Object.entries(attributes)) {
    if (v === null || (name === 'exception' && !EXCEPTION_KEYS.includes(key))) continue;
    put(out, key, plainValue(v));
  }
  return out;
};
