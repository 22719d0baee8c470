/** Longest pattern accepted: a name pattern is a model name with a few alternatives, not a program. */
export const MAX_PATTERN_LENGTH = 500;

/** The top-level alternatives of a pattern (`a|b(c|d)` → `a`, `b(c|d)`), respecting escapes, groups and classes. */
const alternatives = (pattern: string): string[] => {
  const parts: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) {
      parts.push(pattern.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(pattern.slice(start));
  return parts;
};

/**
 * How specific an alternative is: the characters it matches literally. An escaped character
 * counts once; classes, quantifiers, groups' syntax and optional parts (`(…)?`, `x*`) count nothing.
 */
const literalLength = (alternative: string): number => {
  const stripped = alternative
    .replace(/\\./g, 'x')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\([^()]*\)[?*]|\{[^}]*\}/g, '')
    .replace(/.[?*]/g, '');
  return stripped.replace(/[.+()^$|]/g, '').length;
};

/** A compiled name pattern: whole-name, case-insensitive matching, per top-level alternative. */
export type NamePattern = { readonly alternatives: readonly { readonly regex: RegExp; readonly specificity: number }[] };

/** Throws a SyntaxError for a pattern JavaScript cannot compile. */
export const compileNamePattern = (pattern: string): NamePattern => ({
  alternatives: alternatives(pattern).map((a) => ({ regex: new RegExp(`^(?:${a})$`, 'i'), specificity: literalLength(a) })),
});

/** The specificity of the most specific alternative matching the whole name, or null when none does. */
export const matchSpecificity = (pattern: NamePattern, name: string): number | null => {
  let best: number | null = null;
  for (const a of pattern.alternatives) if (a.regex.test(name) && (best === null || a.specificity > best)) best = a.specificity;
  return best;
};
