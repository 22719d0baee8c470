export type TextRule = {
  /** In UTF-16 code units (what `String.length` counts), at most 3 bytes of UTF-8 each. */
  readonly maxLength: number;
  /** Free text (descriptions) may hold tabs and line breaks; names may not. */
  readonly multiline?: boolean;
};

// C0 controls (NUL among them), DEL and C1 controls; tab, LF and CR are allowed in free text.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A string with no UTF-8 form: an unpaired UTF-16 surrogate (`"\ud800"` in JSON). */
export const hasLoneSurrogate = (value: string): boolean => LONE_SURROGATE.test(value);

/**
 * Why a user-supplied text cannot be stored as given, as the end of a sentence ("must ..."), or
 * null. Checked before anything is appended: Postgres `text` refuses U+0000 and `jsonb` unpaired
 * surrogates, and a btree entry holds ~2.7 KB, so a value breaking these would be acknowledged
 * and then stop every read model that meets its event. Control characters are refused too: they
 * are never meant in a name and make spoofed or garbled listings.
 */
export const textProblem = (value: string, rule: TextRule): string | null => {
  if (hasLoneSurrogate(value)) return 'must be valid Unicode text (it holds an unpaired UTF-16 surrogate)';
  if ((rule.multiline === true ? CONTROL_BUT_LINES : CONTROL).test(value)) return 'must not contain control characters';
  if (value.length > rule.maxLength) return `must be at most ${rule.maxLength} characters long`;
  return null;
};

/**
 * What a read model stores for a text taken from an event: U+0000 and unpaired surrogates
 * become U+FFFD, and when `maxLength` is given the text is cut to it. The write rules above keep
 * such values out of new events; this is for events written before them (or crafted into the
 * log), so that replaying one yields a row Postgres accepts instead of stopping the read model.
 * Deterministic, so a rebuild stores the same as the live projection did.
 */
export const storedText = (value: string, maxLength?: number): string => {
  const clean = /[\u0000\ud800-\udfff]/.test(value)
    ? value.replaceAll('\u0000', '\ufffd').replace(new RegExp(LONE_SURROGATE.source, 'g'), '\ufffd')
    : value;
  if (maxLength === undefined || clean.length <= maxLength) return clean;
  // Never cut a surrogate pair in half.
  const end = /[\ud800-\udbff]/.test(clean[maxLength - 1]!) ? maxLength - 1 : maxLength;
  return clean.slice(0, end);
};

/** `storedText` of a nullable value. */
export const storedOptionalText = (value: string | null | undefined, maxLength?: number): string | null =>
  value === null || value === undefined ? null : storedText(value, maxLength);

/** Indexed text (a primary key): 512 UTF-16 units are at most 1.5 KB of UTF-8, inside a btree entry. */
export const INDEXED_TEXT_MAX_LENGTH = 512;
