import { distance } from 'fastest-levenshtein';
import { RE2JS } from 're2js';
import type { JsonObject, JsonValue } from '../base/jsonValue.ts';
import type { Verdict } from './verdict.ts';

/** What a built-in evaluator reads: the mapped `output` and, where it compares, `expected`. */
export type BuiltInInput = { readonly output: unknown; readonly expected: unknown };

type BuiltIn = {
  /** The parameters' problems, each a sentence naming the parameter. */
  readonly problems: (parameters: JsonObject) => string[];
  readonly evaluate: (parameters: JsonObject, input: BuiltInInput) => Verdict;
};

/** Inputs are cut to this many characters first: every built-in then runs in bounded time. */
export const MAX_BUILT_IN_TEXT = 20_000;

const text = (value: unknown): string => {
  const s = typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);
  return s.length > MAX_BUILT_IN_TEXT ? s.slice(0, MAX_BUILT_IN_TEXT) : s;
};

const pass = (ok: boolean, explanation: string): Verdict => ({ label: ok ? 'true' : 'false', score: ok ? 1 : 0, explanation });

const optionalBoolean = (parameters: JsonObject, name: string): string[] =>
  parameters[name] === undefined || typeof parameters[name] === 'boolean' ? [] : [`${name} must be a boolean`];

const words = (value: JsonValue | undefined): string[] =>
  Array.isArray(value)
    ? value.filter((w): w is string => typeof w === 'string')
    : typeof value === 'string'
      ? value
          .split(',')
          .map((w) => w.trim())
          .filter((w) => w !== '')
      : [];

const fold = (s: string, caseSensitive: boolean) => (caseSensitive ? s : s.toLowerCase());

/**
 * The built-in evaluators (Phoenix's names). Each is linear in its input or bounded by
 * MAX_BUILT_IN_TEXT: `regex` runs on RE2JS, whose matching is linear-time whatever the pattern.
 */
export const BUILT_IN_EVALUATORS = {
  contains: {
    problems: (p) => [
      ...(words(p.words).length === 0 ? ['words must be a non-empty list of strings (or a comma-separated string)'] : []),
      ...optionalBoolean(p, 'case_sensitive'),
      ...optionalBoolean(p, 'require_all'),
    ],
    evaluate: (p, input) => {
      const caseSensitive = p.case_sensitive === true;
      const haystack = fold(text(input.output), caseSensitive);
      const found = words(p.words).filter((w) => haystack.includes(fold(w, caseSensitive)));
      const ok = p.require_all === true ? found.length === words(p.words).length : found.length > 0;
      return pass(ok, found.length > 0 ? `found: ${found.join(', ')}` : 'none of the words found');
    },
  },
  regex: {
    problems: (p) => {
      if (typeof p.pattern !== 'string' || p.pattern === '') return ['pattern must be a non-empty string'];
      try {
        RE2JS.compile(p.pattern);
      } catch (error) {
        return [`pattern is not a valid linear-time regular expression: ${(error as Error).message}`];
      }
      return optionalBoolean(p, 'full_match');
    },
    evaluate: (p, input) => {
      const matcher = RE2JS.compile(String(p.pattern)).matcher(text(input.output));
      const ok = p.full_match === true ? matcher.matches() : matcher.find();
      return pass(ok, ok ? 'the pattern matched' : 'the pattern did not match');
    },
  },
  exact_match: {
    problems: (p) => [...optionalBoolean(p, 'case_sensitive'), ...optionalBoolean(p, 'strip_whitespace')],
    evaluate: (p, input) => {
      const prepare = (v: unknown) => {
        const s = fold(text(v), p.case_sensitive !== false);
        return p.strip_whitespace === false ? s : s.trim();
      };
      const ok = prepare(input.output) === prepare(input.expected);
      return pass(ok, ok ? 'the output equals the expected value' : 'the output differs from the expected value');
    },
  },
  json_parseable: {
    problems: () => [],
    evaluate: (_p, input) => {
      try {
        JSON.parse(text(input.output));
        return pass(true, 'the output is JSON');
      } catch (error) {
        return pass(false, `the output is not JSON: ${(error as Error).message}`);
      }
    },
  },
  levenshtein_distance: {
    problems: (p) => optionalBoolean(p, 'case_sensitive'),
    evaluate: (p, input) => {
      const caseSensitive = p.case_sensitive !== false;
      const d = distance(fold(text(input.output), caseSensitive), fold(text(input.expected), caseSensitive));
      return { label: null, score: d, explanation: `edit distance ${d}` };
    },
  },
} satisfies Record<string, BuiltIn>;

export type BuiltInName = keyof typeof BUILT_IN_EVALUATORS;

export const isBuiltInName = (name: string): name is BuiltInName => Object.hasOwn(BUILT_IN_EVALUATORS, name);
