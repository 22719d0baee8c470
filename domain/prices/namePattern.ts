import { RE2JS } from 're2js';

/** Longest pattern accepted: a name pattern is a model name with a few alternatives, not a program. */
export const MAX_PATTERN_LENGTH = 500;

/**
 * Largest compiled program (RE2's instruction count) of one alternative. Matching is linear in the
 * name (at most 256 characters, priceBook.ts) times this, so no stored pattern can hold the event
 * loop: the built-in table's largest is about 100; `x{1000}` or `.{0,100}{5}` is refused.
 */
export const MAX_PROGRAM_SIZE = 1_000;

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
export type NamePattern = { readonly alternatives: readonly { readonly regex: RE2JS; readonly specificity: number }[] };

const compileAlternative = (alternative: string): RE2JS => {
  const regex = RE2JS.compile(alternative, RE2JS.CASE_INSENSITIVE);
  if (regex.programSize() > MAX_PROGRAM_SIZE)
    throw new SyntaxError(`"${alternative.slice(0, 60)}" is too complex (more than ${MAX_PROGRAM_SIZE} steps per character)`);
  return regex;
};

/**
 * Compiled patterns by text. Every projected batch builds a price book over the whole table, and
 * an RE2 compile costs what a JavaScript one does not; patterns change rarely, so each is compiled
 * once. Bounded: when full it starts over (admins' patterns are few; a flood only recompiles).
 */
const compiled = new Map<string, NamePattern>();
const MAX_COMPILED = 2_000;

/**
 * Patterns are RE2 syntax and matched in linear time (re2js, a port of RE2): what only a
 * backtracking engine can do (`\1`, lookaround) is refused with a SyntaxError, so `(a+)+`
 * against `aaaa…!` is as fast as any other pattern. Throws a SyntaxError for a pattern RE2 cannot
 * compile or that is too complex.
 */
export const compileNamePattern = (pattern: string): NamePattern => {
  const known = compiled.get(pattern);
  if (known !== undefined) return known;
  let result: NamePattern;
  try {
    result = { alternatives: alternatives(pattern).map((a) => ({ regex: compileAlternative(a), specificity: literalLength(a) })) };
  } catch (error) {
    throw error instanceof SyntaxError ? error : new SyntaxError((error as Error).message);
  }
  if (compiled.size >= MAX_COMPILED) compiled.clear();
  compiled.set(pattern, result);
  return result;
};

/** The specificity of the most specific alternative matching the whole name, or null when none does. */
export const matchSpecificity = (pattern: NamePattern, name: string): number | null => {
  let best: number | null = null;
  for (const a of pattern.alternatives) if (a.regex.matches(name) && (best === null || a.specificity > best)) best = a.specificity;
  return best;
};
