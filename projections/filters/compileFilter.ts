import { sql, type FragmentSqlToken } from 'slonik';
import { attributeMatches } from '../tracing/attributeFilter.ts';
import {
  FilterError,
  type CompareOp,
  type FilterExpr,
  type Literal,
  type Operand,
  type Reference,
} from '../../domain/filters/filterSyntax.ts';

/**
 * Compiles a parsed filter into one SQL condition. Every value from the text is a bound parameter
 * and every column comes from the catalogues below; an unknown name, or a value of the wrong type
 * for its field, is a FilterError with the position, never a SQL error.
 *
 * - spans: the condition is on `spans s`.
 * - traces: on `traces t`; the trace's own aggregates (span_count, total_tokens, latency_ms, …)
 *   directly, span fields and attributes on its root span, annotations on the trace or its root span.
 * - sessions: on `sessions s`; the session's aggregates directly, span fields and attributes on its
 *   turns (a condition holds when one turn's root span satisfies it), annotations on the session.
 */
export type FilterSubject = 'span' | 'trace' | 'session';

type ValueType = 'text' | 'number' | 'time';

/** A field reference resolved to SQL. `within` wraps a condition on it (an EXISTS over related rows). */
type Term =
  | {
      readonly kind: 'column';
      readonly type: ValueType;
      readonly sql: FragmentSqlToken;
      readonly upper?: boolean;
      readonly within?: Within;
    }
  | { readonly kind: 'attribute'; readonly alias: string; readonly key: string; readonly within?: Within };
type Within = (condition: FragmentSqlToken) => FragmentSqlToken;

const spanColumns = (a: string): Record<string, { type: ValueType; sql: FragmentSqlToken; upper?: boolean }> => {
  const col = (name: string) => sql.identifier([a, name]);
  return {
    name: { type: 'text', sql: sql.fragment`${col('name')}` },
    span_kind: { type: 'text', sql: sql.fragment`${col('span_kind')}`, upper: true },
    status_code: { type: 'text', sql: sql.fragment`${col('status_code')}`, upper: true },
    status_message: { type: 'text', sql: sql.fragment`${col('status_message')}` },
    span_id: { type: 'text', sql: sql.fragment`${col('span_id')}` },
    'context.span_id': { type: 'text', sql: sql.fragment`${col('span_id')}` },
    trace_id: { type: 'text', sql: sql.fragment`${col('trace_id')}` },
    'context.trace_id': { type: 'text', sql: sql.fragment`${col('trace_id')}` },
    parent_id: { type: 'text', sql: sql.fragment`${col('parent_id')}` },
    start_time: { type: 'time', sql: sql.fragment`${col('start_time')}` },
    end_time: { type: 'time', sql: sql.fragment`${col('end_time')}` },
    latency_ms: { type: 'number', sql: sql.fragment`(extract(epoch FROM ${col('end_time')} - ${col('start_time')}) * 1000)` },
    // USD, from the price table (null when the model has no price: `cost is None` finds those)
    cost: { type: 'number', sql: sql.fragment`${col('cost_total')}` },
    'cost.total': { type: 'number', sql: sql.fragment`${col('cost_total')}` },
    'cost.prompt': { type: 'number', sql: sql.fragment`${col('cost_prompt')}` },
    'cost.completion': { type: 'number', sql: sql.fragment`${col('cost_completion')}` },
  };
};

type Columns = Record<string, { type: ValueType; sql: FragmentSqlToken }>;

/** What traces and sessions both aggregate, on the table aliased `a` (same column names in both). */
const aggregateColumns = (a: 't' | 's'): Columns => {
  const col = (name: string) => sql.identifier([a, name]);
  return {
    start_time: { type: 'time', sql: sql.fragment`${col('start_time')}` },
    end_time: { type: 'time', sql: sql.fragment`${col('end_time')}` },
    latency_ms: { type: 'number', sql: sql.fragment`(extract(epoch FROM ${col('end_time')} - ${col('start_time')}) * 1000)` },
    prompt_tokens: { type: 'number', sql: sql.fragment`${col('token_count_prompt')}` },
    completion_tokens: { type: 'number', sql: sql.fragment`${col('token_count_completion')}` },
    total_tokens: { type: 'number', sql: sql.fragment`(${col('token_count_prompt')} + ${col('token_count_completion')})` },
    cost: { type: 'number', sql: sql.fragment`${col('cost_total')}` },
    'cost.total': { type: 'number', sql: sql.fragment`${col('cost_total')}` },
    'cost.prompt': { type: 'number', sql: sql.fragment`${col('cost_prompt')}` },
    'cost.completion': { type: 'number', sql: sql.fragment`${col('cost_completion')}` },
  };
};

const traceColumns: Columns = {
  trace_id: { type: 'text', sql: sql.fragment`t.trace_id` },
  span_count: { type: 'number', sql: sql.fragment`t.span_count` },
  error_count: { type: 'number', sql: sql.fragment`t.error_count` },
  ...aggregateColumns('t'),
};

const sessionColumns: Columns = {
  session_id: { type: 'text', sql: sql.fragment`s.session_id` },
  trace_count: { type: 'number', sql: sql.fragment`s.trace_count` },
  num_traces: { type: 'number', sql: sql.fragment`s.trace_count` },
  ...aggregateColumns('s'),
};

/** The fields each subject knows by name (for errors and the UI's completion). */
export const filterFields = (subject: FilterSubject): readonly string[] => {
  const span = Object.keys(spanColumns('s'));
  if (subject === 'span') return span;
  const own = Object.keys(subject === 'trace' ? traceColumns : sessionColumns);
  return [...own, ...span.filter((f) => !own.includes(f))];
};

const rootSpanOfTrace: Within = (c) =>
  sql.fragment`EXISTS (SELECT 1 FROM spans r WHERE r.trace_rowid = t.id AND r.parent_id IS NULL AND ${c})`;
const turnOfSession: Within = (c) =>
  sql.fragment`EXISTS (SELECT 1 FROM traces st JOIN spans r ON r.trace_rowid = st.id AND r.parent_id IS NULL WHERE st.session_id = s.id AND ${c})`;

const annotationWithin = (subject: FilterSubject, name: string): Within => {
  const target =
    subject === 'span'
      ? sql.fragment`a.target = 'span' AND a.target_id = s.span_id`
      : subject === 'trace'
        ? sql.fragment`((a.target = 'trace' AND a.target_id = t.trace_id) OR (a.target = 'span' AND a.target_id = t.root_span_id))`
        : sql.fragment`a.target = 'session' AND a.target_id = s.session_id`;
  return (c) => sql.fragment`EXISTS (SELECT 1 FROM annotations a WHERE ${target} AND a.name = ${name} AND ${c})`;
};

const resolve = (ref: Reference, subject: FilterSubject): Term => {
  const spanAlias = subject === 'span' ? 's' : 'r';
  const spanWithin = subject === 'span' ? undefined : subject === 'trace' ? rootSpanOfTrace : turnOfSession;
  if (ref.kind === 'annotation') {
    const column = ref.property === 'label' ? sql.fragment`a.label` : sql.fragment`a.score`;
    return { kind: 'column', type: ref.property === 'label' ? 'text' : 'number', sql: column, within: annotationWithin(subject, ref.name) };
  }
  if (ref.kind === 'attribute') return { kind: 'attribute', alias: spanAlias, key: ref.key, within: spanWithin };
  const own = subject === 'trace' ? traceColumns[ref.path] : subject === 'session' ? sessionColumns[ref.path] : undefined;
  if (own !== undefined) return { kind: 'column', ...own };
  const span = Object.hasOwn(spanColumns(spanAlias), ref.path) ? spanColumns(spanAlias)[ref.path] : undefined;
  if (span !== undefined) return { kind: 'column', ...span, within: spanWithin };
  if (!ref.path.includes('.')) {
    throw new FilterError(
      ref.at,
      `a known field (${filterFields(subject).join(', ')}), a dotted attribute such as llm.model_name, or attributes['${ref.path}']`,
      `"${ref.path}"`,
    );
  }
  return { kind: 'attribute', alias: spanAlias, key: ref.path, within: spanWithin };
};

const FLIP: Record<CompareOp, CompareOp> = { '==': '==', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
const SQL_OP: Record<CompareOp, FragmentSqlToken> = {
  '==': sql.fragment`=`,
  '!=': sql.fragment`<>`,
  '<': sql.fragment`<`,
  '<=': sql.fragment`<=`,
  '>': sql.fragment`>`,
  '>=': sql.fragment`>=`,
};

const typeOf = (v: Literal): string =>
  v === null ? 'None' : typeof v === 'string' ? 'a string' : typeof v === 'number' ? 'a number' : 'a boolean';

/** A literal as the column's type wants it, or a FilterError at the literal. */
const columnValue = (term: Term & { kind: 'column' }, value: Literal, at: number): FragmentSqlToken => {
  if (term.type === 'number') {
    if (typeof value !== 'number') throw new FilterError(at, 'a number', typeOf(value));
    return sql.fragment`${value}::float8`;
  }
  if (typeof value !== 'string') throw new FilterError(at, 'a string', typeOf(value));
  if (term.type === 'time') {
    if (Number.isNaN(Date.parse(value)))
      throw new FilterError(at, "an ISO 8601 time such as '2026-11-27T10:00:00Z'", JSON.stringify(value));
    return sql.fragment`${new Date(value).toISOString()}::timestamptz`;
  }
  return sql.fragment`${term.upper ? value.toUpperCase() : value}`;
};

const attributeText = (term: Term & { kind: 'attribute' }) => sql.fragment`(${sql.identifier([term.alias, 'attributes'])} ->> ${term.key})`;
const attributeJson = (term: Term & { kind: 'attribute' }) => sql.fragment`(${sql.identifier([term.alias, 'attributes'])} -> ${term.key})`;
const attributeNumber = (term: Term & { kind: 'attribute' }) =>
  sql.fragment`(CASE WHEN jsonb_typeof(${attributeJson(term)}) = 'number' THEN (${attributeText(term)})::float8 END)`;

const within = (term: Term, condition: FragmentSqlToken): FragmentSqlToken => (term.within ? term.within(condition) : condition);

const isNone = (term: Term, negated: boolean): FragmentSqlToken => {
  const present =
    term.kind === 'column'
      ? sql.fragment`${term.sql} IS NOT NULL`
      : sql.fragment`coalesce(jsonb_typeof(${attributeJson(term)}), 'null') <> 'null'`;
  const somePresent = within(term, present);
  return negated ? somePresent : sql.fragment`NOT ${somePresent}`;
};

const compare = (term: Term, op: CompareOp, value: Literal, at: number): FragmentSqlToken => {
  if (value === null) {
    if (op === '==' || op === '!=') return isNone(term, op === '!=');
    throw new FilterError(at, 'a value other than None for an ordering comparison', 'None');
  }
  if (term.kind === 'column') return within(term, sql.fragment`${term.sql} ${SQL_OP[op]} ${columnValue(term, value, at)}`);
  if (op === '==' || op === '!=') {
    // Equality is jsonb containment, so the attribute indexes serve it (attributeFilter.ts).
    const equal = attributeMatches(term.alias, term.key, value);
    return within(term, op === '==' ? equal : sql.fragment`${attributeJson(term)} IS NOT NULL AND NOT ${equal}`);
  }
  if (typeof value === 'number') return within(term, sql.fragment`${attributeNumber(term)} ${SQL_OP[op]} ${value}::float8`);
  if (typeof value === 'string') {
    return within(term, sql.fragment`jsonb_typeof(${attributeJson(term)}) = 'string' AND ${attributeText(term)} ${SQL_OP[op]} ${value}`);
  }
  throw new FilterError(at, 'a number or a string for an ordering comparison', typeOf(value));
};

/** `'word' in field`: the field's text contains the word (case-sensitive, as in Python). */
const contains = (term: Term, word: Literal, at: number): FragmentSqlToken => {
  if (typeof word !== 'string') throw new FilterError(at, 'a string to look for inside the field', typeOf(word));
  if (term.kind === 'column' && term.type !== 'text') throw new FilterError(at, 'a text field after "in"', 'a field that is not text');
  const text = term.kind === 'column' ? term.sql : attributeText(term);
  return within(term, sql.fragment`strpos(${text}, ${term.kind === 'column' && term.upper ? word.toUpperCase() : word}) > 0`);
};

/** `field in [a, b]`: equal to one of them. */
const oneOf = (term: Term, items: readonly Literal[], at: number): FragmentSqlToken => {
  if (items.length === 0) return sql.fragment`FALSE`;
  const alternatives = items.map((item) => compare(term, '==', item, at));
  return alternatives.length === 1 ? alternatives[0]! : sql.fragment`(${sql.join(alternatives, sql.fragment` OR `)})`;
};

const literalOf = (o: Operand): Literal | undefined => (o.kind === 'literal' ? o.value : undefined);
const isReference = (o: Operand): o is Reference => o.kind === 'name' || o.kind === 'attribute' || o.kind === 'annotation';

export const compileFilter = (tree: FilterExpr, subject: FilterSubject): FragmentSqlToken => {
  const go = (e: FilterExpr): FragmentSqlToken => {
    switch (e.kind) {
      case 'and':
        return sql.fragment`(${go(e.left)} AND ${go(e.right)})`;
      case 'or':
        return sql.fragment`(${go(e.left)} OR ${go(e.right)})`;
      case 'not':
        // A comparison on a missing value is NULL in SQL; `not` of it must still be a yes or a no.
        return sql.fragment`(${go(e.operand)}) IS NOT TRUE`;
      case 'isNone':
        if (!isReference(e.operand)) throw new FilterError(e.operand.at, 'a field before "is None"', 'a value');
        return isNone(resolve(e.operand, subject), e.negated);
      case 'compare': {
        const [ref, value, op] = isReference(e.left) ? [e.left, e.right, e.op] : [e.right, e.left, FLIP[e.op]];
        if (!isReference(ref)) throw new FilterError(e.left.at, 'a field on one side of the comparison', 'two values');
        if (isReference(value)) throw new FilterError(value.at, 'a value (a string, a number, True, False or None)', 'a second field');
        if (value.kind === 'list') throw new FilterError(value.at, `a single value (use "in [...]" for a list)`, 'a list');
        return compare(resolve(ref, subject), op, value.value, value.at);
      }
      case 'in': {
        let condition: FragmentSqlToken;
        if (isReference(e.haystack)) {
          const word = literalOf(e.needle);
          if (word === undefined) throw new FilterError(e.needle.at, 'a string before "in" a field', 'a field or a list');
          condition = contains(resolve(e.haystack, subject), word, e.needle.at);
        } else if (e.haystack.kind === 'list') {
          if (!isReference(e.needle)) throw new FilterError(e.needle.at, 'a field before "in [...]"', 'a value');
          condition = oneOf(resolve(e.needle, subject), e.haystack.items, e.haystack.at);
        } else {
          throw new FilterError(e.haystack.at, 'a field or a list after "in"', 'a single value');
        }
        return e.negated ? sql.fragment`(${condition}) IS NOT TRUE` : condition;
      }
    }
  };
  return go(tree);
};
