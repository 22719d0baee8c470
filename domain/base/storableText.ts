/**
 * What any stored text may hold, for every feature: the limits and the cuts that keep a string
 * storable in Postgres `text`, `jsonb` and a btree index. The span rules built on them, and why
 * each limit is what it is, are in domain/tracing/storable.ts.
 */
export const NAME_MAX_BYTES = 1024;
export const MESSAGE_MAX_BYTES = 65_536;
export const MAX_DEPTH = 32;
export const TOO_DEEP = `[nested more than ${MAX_DEPTH} levels deep]`;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ELLIPSIS = '…';

/**
 * The string with U+0000 and unpaired surrogates replaced by U+FFFD; the same string when clean.
 * The check runs on every string of every span, twice (ingest and projection): `includes` and
 * `isWellFormed` are native scans, ten times faster than a regular expression over the same text.
 */
export const storableText = (s: string): string =>
  s.includes('\u0000') || !s.isWellFormed() ? s.replaceAll('\u0000', '\ufffd').replace(LONE_SURROGATE, '\ufffd') : s;

/**
 * `storableText`, cut to at most `maxBytes` of UTF-8 (on a code point boundary, ending in "…").
 * A string of at most maxBytes / 3 characters always fits, so the byte count is only taken then.
 */
export const clippedText = (s: string, maxBytes: number): string => {
  const clean = storableText(s);
  if (clean.length * 3 <= maxBytes || Buffer.byteLength(clean, 'utf8') <= maxBytes) return clean;
  const budget = maxBytes - Buffer.byteLength(ELLIPSIS, 'utf8');
  let bytes = 0;
  let end = 0;
  for (const ch of clean) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > budget) break;
    bytes += size;
    end += ch.length;
  }
  return `${clean.slice(0, end)}${ELLIPSIS}`;
};

export const storableName = (s: string): string => clippedText(s, NAME_MAX_BYTES);

const UINT64_MAX = 2n ** 64n - 1n;

/** `n` moved into [min, max]. */
export const clampBig = (n: bigint, min: bigint, max: bigint): bigint => (n < min ? min : n > max ? max : n);

/** Unix nanoseconds as a uint64 decimal string; anything else is "0" (the epoch). */
export const storableNanos = (v: unknown): string => {
  if (typeof v === 'string' && /^\d+$/.test(v)) {
    const n = BigInt(v);
    return n > UINT64_MAX ? UINT64_MAX.toString() : n.toString() === v ? v : n.toString();
  }
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return clampBig(BigInt(Math.trunc(v)), 0n, UINT64_MAX).toString();
  return '0';
};
