import type { JsonObject, JsonValue } from './jsonValue.ts';
import { MAX_DEPTH, storableText, TOO_DEEP } from './storableText.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A JSON value as `jsonb` can hold it: strings and keys without U+0000 or unpaired surrogates
 * (replaced by U+FFFD, as for span attributes), numbers finite (JSON cannot carry others; a
 * crafted event could), nesting at most MAX_DEPTH deep (deeper values become a marker string).
 */
export const storableJson = (v: unknown, depth = 1): JsonValue => {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return storableText(v);
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean') return v;
  if (depth > MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(v)) return v.map((x) => storableJson(x, depth + 1));
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [storableText(k), storableJson(x, depth + 1)]));
  return storableText(String(v));
};

export const storableMetadata = (v: unknown): JsonObject => {
  const json = isRecord(v) ? storableJson(v) : {};
  return isRecord(json) ? (json as JsonObject) : {};
};
