/**
 * The filter language of spans, traces and sessions: the subset of Phoenix's Python-syntax filter
 * conditions that users write (`span_kind == 'LLM' and latency_ms > 5000`, `'refund' in
 * input.value`, `attributes['llm.model_name'] == 'gpt-4o'`, `annotations['correctness'].label ==
 * 'incorrect'`, `parent_id is None`). A recursive-descent parser turns the text into a typed tree;
 * nothing of the text ever reaches SQL except as a bound parameter (compileFilter.ts).
 */

/** Longer expressions are refused before they are read: a filter is typed by a person. */
export const MAX_FILTER_LENGTH = 2_000;
/** Nesting (parentheses, `not`) deeper than this is refused, so no input can exhaust the stack. */
export const MAX_FILTER_DEPTH = 32;

export type Literal = string | number | boolean | null;

/** Where a node starts in the text (0-based character offset), for error messages. */
type At = { readonly at: number };

export type Reference =
  /** A bare or dotted name: a known column (`latency_ms`) or a flat attribute key (`llm.model_name`). */
  | (At & { readonly kind: 'name'; readonly path: string })
  | (At & { readonly kind: 'attribute'; readonly key: string })
  | (At & { readonly kind: 'annotation'; readonly name: string; readonly property: 'label' | 'score' });

export type Operand =
  | Reference
  | (At & { readonly kind: 'literal'; readonly value: Literal })
  | (At & { readonly kind: 'list'; readonly items: readonly Literal[] });

export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>=';

export type FilterExpr =
  | (At & { readonly kind: 'and' | 'or'; readonly left: FilterExpr; readonly right: FilterExpr })
  | (At & { readonly kind: 'not'; readonly operand: FilterExpr })
  | (At & { readonly kind: 'compare'; readonly op: CompareOp; readonly left: Operand; readonly right: Operand })
  | (At & { readonly kind: 'in'; readonly negated: boolean; readonly needle: Operand; readonly haystack: Operand })
  | (At & { readonly kind: 'isNone'; readonly negated: boolean; readonly operand: Operand });

/**
 * A filter that cannot be read or cannot mean anything. It carries its HTTP meaning (422, like
 * any unprocessable parameter) the way ingest's errors do, so REST and GraphQL answer it alike.
 */
export class FilterError extends Error {
  readonly status = 422;
  readonly code = 'invalid_filter';
  readonly expose = true;
  constructor(
    readonly position: number,
    readonly expected: string,
    readonly found: string,
  ) {
    super(`invalid filter at position ${position}: expected ${expected}, found ${found}`);
  }
}

type Token =
  | { readonly type: 'name'; readonly text: string; readonly at: number }
  | { readonly type: 'string'; readonly value: string; readonly at: number }
  | { readonly type: 'number'; readonly value: number; readonly at: number }
  | { readonly type: 'op'; readonly text: string; readonly at: number }
  | { readonly type: 'end'; readonly at: number };

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'is', 'None', 'True', 'False']);
const OPERATORS = ['==', '!=', '<=', '>=', '<', '>', '(', ')', '[', ']', '.', ','];
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };

const describe = (t: Token): string => {
  switch (t.type) {
    case 'end':
      return 'the end of the filter';
    case 'string':
      return `the string ${JSON.stringify(t.value.length > 40 ? `${t.value.slice(0, 40)}…` : t.value)}`;
    case 'number':
      return `the number ${t.value}`;
    default:
      return `"${t.text}"`;
  }
};

const tokenize = (text: string): Token[] => {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    if (c === "'" || c === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new FilterError(at, `a closing ${c} for the string that starts here`, 'the end of the filter');
        const d = text[i]!;
        if (d === c) break;
        if (d === '\\') {
          const e = text[i + 1];
          if (e === undefined || !(e in ESCAPES))
            throw new FilterError(i, `one of the escapes \\n \\t \\r \\\\ \\' \\" \\0`, `"\\${e ?? ''}"`);
          value += ESCAPES[e];
          i += 2;
          continue;
        }
        value += d;
        i++;
      }
      i++;
      if (value.includes('\0')) throw new FilterError(at, 'a string without NUL characters', 'a NUL character');
      tokens.push({ type: 'string', value, at });
      continue;
    }
    // After a ".", only a whole number (a list index inside a dotted key: llm.input_messages.0.message.content).
    // A "-" is a sign where an operand is expected (after an operator or at the start).
    const previous = tokens.at(-1);
    const afterDot = previous?.type === 'op' && previous.text === '.';
    const signAllowed =
      previous === undefined ||
      (previous.type === 'op' && previous.text !== ')' && previous.text !== ']') ||
      (previous.type === 'name' && KEYWORDS.has(previous.text));
    const number = (
      afterDot ? /^\d+/ : signAllowed ? /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/ : /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/
    ).exec(text.slice(i, i + 64));
    if (number !== null && (afterDot || c !== '.')) {
      const value = Number(number[0]);
      if (!Number.isFinite(value)) throw new FilterError(at, 'a finite number', `"${number[0]}"`);
      tokens.push({ type: 'number', value, at });
      i += number[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 256));
    if (name) {
      tokens.push({ type: 'name', text: name[0], at });
      i += name[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (op === undefined) throw new FilterError(at, 'a name, a string, a number, a comparison or a bracket', `"${c}"`);
    tokens.push({ type: 'op', text: op, at });
    i += op.length;
  }
  tokens.push({ type: 'end', at: text.length });
  return tokens;
};

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (UTF-16 code units). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Parses a filter condition into its tree, or throws FilterError naming the position and what was expected. */
export const parseFilter = (text: string): FilterExpr => {
  if (text.length > MAX_FILTER_LENGTH) {
    throw new FilterError(MAX_FILTER_LENGTH, `a filter of at most ${MAX_FILTER_LENGTH} characters`, `${text.length} characters`);
  }
  // A lone surrogate (GraphQL's JSON can carry "\ud800"; a query string cannot) would reach the
  // database as a parameter it refuses: refused here, where it is, like any other bad character.
  const lone = LONE_SURROGATE.exec(text);
  if (lone !== null)
    throw new FilterError(
      lone.index,
      'text without unpaired UTF-16 surrogates',
      `the lone surrogate \\u${lone[0].charCodeAt(0).toString(16)}`,
    );
  const tokens = tokenize(text);
  let next = 0;
  let depth = 0;
  const peek = (): Token => tokens[next]!;
  const isOp = (t: Token, op: string) => t.type === 'op' && t.text === op;
  const isWord = (t: Token, word: string) => t.type === 'name' && t.text === word;
  const expectOp = (op: string, what = `"${op}"`): Token => {
    const t = peek();
    if (!isOp(t, op)) throw new FilterError(t.at, what, describe(t));
    next++;
    return t;
  };
  const nest = <T>(at: number, parse: () => T): T => {
    if (++depth > MAX_FILTER_DEPTH) throw new FilterError(at, `at most ${MAX_FILTER_DEPTH} levels of nesting`, 'deeper nesting');
    const result = parse();
    depth--;
    return result;
  };

  const literal = (): Literal | undefined => {
    const t = peek();
    if (t.type === 'string' || t.type === 'number') {
      next++;
      return t.value;
    }
    if (isWord(t, 'None') || isWord(t, 'True') || isWord(t, 'False')) {
      next++;
      return t.type === 'name' && t.text === 'None' ? null : t.type === 'name' && t.text === 'True';
    }
    return undefined;
  };

  const list = (close: string): Operand => {
    const open = tokens[next - 1]!;
    const items: Literal[] = [];
    while (!isOp(peek(), close)) {
      const t = peek();
      const item = literal();
      if (item === undefined) throw new FilterError(t.at, `a string, number, True, False or None in the list`, describe(t));
      items.push(item);
      if (!isOp(peek(), close)) expectOp(',', `"," or "${close}"`);
    }
    next++;
    return { kind: 'list', items, at: open.at };
  };

  /** `name`, `a.b.c`, `attributes['k']`, `annotations['n'].label`. */
  const reference = (): Reference => {
    const first = peek();
    if (first.type !== 'name' || KEYWORDS.has(first.text)) {
      throw new FilterError(
        first.at,
        'a field (a column such as latency_ms, an attribute such as llm.model_name), a string or a number',
        describe(first),
      );
    }
    next++;
    if (isOp(peek(), '[')) {
      next++;
      const key = peek();
      if (key.type !== 'string') throw new FilterError(key.at, `a quoted key inside ${first.text}[...]`, describe(key));
      next++;
      expectOp(']', '"]"');
      if (first.text === 'attributes') return { kind: 'attribute', key: key.value, at: first.at };
      if (first.text === 'annotations' || first.text === 'evals') {
        expectOp('.', `".label" or ".score" after ${first.text}[...]`);
        const property = peek();
        if (!(isWord(property, 'label') || isWord(property, 'score'))) {
          throw new FilterError(property.at, '"label" or "score"', describe(property));
        }
        next++;
        return { kind: 'annotation', name: key.value, property: (property as { text: 'label' | 'score' }).text, at: first.at };
      }
      throw new FilterError(first.at, 'attributes[...] or annotations[...]', `"${first.text}[...]"`);
    }
    let path = first.text;
    while (isOp(peek(), '.')) {
      next++;
      const part = peek();
      // Dotted attribute keys carry numbers too (llm.input_messages.0.message.content).
      if (part.type === 'name') path += `.${part.text}`;
      else if (part.type === 'number' && Number.isInteger(part.value) && part.value >= 0) path += `.${part.value}`;
      else throw new FilterError(part.at, 'a name after "."', describe(part));
      next++;
    }
    if (isOp(peek(), '(')) throw new FilterError(peek().at, 'an operator (calls are not part of the filter language)', '"("');
    return { kind: 'name', path, at: first.at };
  };

  const operand = (): Operand => {
    const t = peek();
    if (isOp(t, '[')) {
      next++;
      return list(']');
    }
    const value = literal();
    if (value !== undefined) return { kind: 'literal', value, at: t.at };
    return reference();
  };

  const COMPARE: readonly CompareOp[] = ['==', '!=', '<', '<=', '>', '>='];

  const comparison = (): FilterExpr => {
    const start = peek();
    if (isOp(start, '(')) {
      next++;
      const inner = nest(start.at, expression);
      expectOp(')', '")" or "and" / "or"');
      return inner;
    }
    const left = operand();
    const t = peek();
    if (t.type === 'op' && (COMPARE as readonly string[]).includes(t.text)) {
      next++;
      const right = operand();
      return { kind: 'compare', op: t.text as CompareOp, left, right, at: start.at };
    }
    const negatedIn = isWord(t, 'not') && isWord(tokens[next + 1]!, 'in');
    if (isWord(t, 'in') || negatedIn) {
      next += negatedIn ? 2 : 1;
      const open = peek();
      const haystack = isOp(open, '(') ? (next++, list(')')) : operand();
      return { kind: 'in', negated: negatedIn, needle: left, haystack, at: start.at };
    }
    if (isWord(t, 'is')) {
      next++;
      const negated = isWord(peek(), 'not');
      if (negated) next++;
      const none = peek();
      if (!isWord(none, 'None')) throw new FilterError(none.at, '"None" after "is"', describe(none));
      next++;
      return { kind: 'isNone', negated, operand: left, at: start.at };
    }
    throw new FilterError(t.at, 'a comparison (== != < <= > >=), "in", "not in" or "is None"', describe(t));
  };

  const negation = (): FilterExpr => {
    const t = peek();
    if (isWord(t, 'not')) {
      next++;
      return nest(t.at, () => ({ kind: 'not', operand: negation(), at: t.at }));
    }
    return comparison();
  };

  const conjunction = (): FilterExpr => {
    let left = negation();
    while (isWord(peek(), 'and')) {
      const at = peek().at;
      next++;
      left = { kind: 'and', left, right: negation(), at };
    }
    return left;
  };

  function expression(): FilterExpr {
    let left = conjunction();
    while (isWord(peek(), 'or')) {
      const at = peek().at;
      next++;
      left = { kind: 'or', left, right: conjunction(), at };
    }
    return left;
  }

  if (peek().type === 'end') throw new FilterError(0, 'a condition', 'an empty filter');
  const tree = expression();
  const rest = peek();
  if (rest.type !== 'end') throw new FilterError(rest.at, '"and", "or" or the end of the filter', describe(rest));
  return tree;
};
