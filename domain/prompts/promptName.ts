import { NAME_MAX_BYTES } from '../base/storableText.ts';

/** The reference's `Identifier`: prompt, tag and label names. */
export const IDENTIFIER_PATTERN = /^[a-z0-9]([_a-z0-9-]*[a-z0-9])?$/;

/**
 * Why `value` cannot be an identifier, or null. The rule is the reference's pattern; the length
 * limit is ours (names sit in unique btree indexes, which hold at most ~2.7 KB a row).
 */
export const identifierProblem = (value: string): string | null => {
  if (!IDENTIFIER_PATTERN.test(value))
    return `must match ${IDENTIFIER_PATTERN.source}: lowercase letters, digits, "_" and "-", starting and ending with a letter or digit`;
  if (value.length > NAME_MAX_BYTES) return `must be at most ${NAME_MAX_BYTES} characters`;
  return null;
};
