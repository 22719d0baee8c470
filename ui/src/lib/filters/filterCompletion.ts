/**
 * Completion for the filter bar: the word being typed at the caret (a field such as
 * `latency_ms`, a dotted attribute such as `llm.model_name`) and what may replace it. Pure, so it
 * is tested without a browser.
 */
export type CompletionContext = {
  /** Where the word starts and ends in the text (the caret is at `end`). */
  readonly start: number;
  readonly end: number;
  readonly prefix: string;
};

const WORD = /[A-Za-z_][\w.]*$/;
const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'is', 'None', 'True', 'False']);

/** The word before the caret, unless the caret is inside a string or the word is a keyword. */
export const completionContext = (text: string, caret: number): CompletionContext | null => {
  const before = text.slice(0, caret);
  // An odd number of quotes before the caret: it is inside a string literal.
  const quotes = (before.match(/(?<!\\)['"]/g) ?? []).length;
  if (quotes % 2 === 1) return null;
  const match = WORD.exec(before);
  if (match === null || KEYWORDS.has(match[0])) return null;
  return { start: caret - match[0].length, end: caret, prefix: match[0] };
};

/** Fields first (exact prefix), then attribute keys; at most `limit`, without the word itself. */
export const suggestions = (
  context: CompletionContext,
  fields: readonly string[],
  attributeKeys: readonly string[],
  limit = 8,
): string[] => {
  const lower = context.prefix.toLowerCase();
  const starts = (s: string) => s.toLowerCase().startsWith(lower) && s !== context.prefix;
  const inside = (s: string) => !s.toLowerCase().startsWith(lower) && s.toLowerCase().includes(lower);
  const all = [...new Set([...fields, ...attributeKeys])];
  return [...all.filter(starts), ...(lower.length >= 2 ? all.filter(inside) : [])].slice(0, limit);
};

/** The text with the word replaced by `choice`, and where the caret goes. */
export const applySuggestion = (text: string, context: CompletionContext, choice: string): { text: string; caret: number } => ({
  text: text.slice(0, context.start) + choice + text.slice(context.end),
  caret: context.start + choice.length,
});

/** What the examples menu offers, per subject: each works on any project that has such data. */
export const FILTER_EXAMPLES: Record<'span' | 'trace' | 'session', readonly string[]> = {
  span: [
    "span_kind == 'LLM' and latency_ms > 5000",
    "llm.model_name == 'gpt-4o'",
    "'refund' in input.value",
    "not (status_code == 'OK')",
    "annotations['correctness'].label == 'incorrect'",
    "span_kind in ['TOOL', 'RETRIEVER'] and parent_id is not None",
  ],
  trace: ['span_count > 10', "status_code == 'ERROR'", 'total_tokens > 1000', "'refund' in input.value"],
  session: ['trace_count >= 3', "'refund' in input.value", "status_code == 'ERROR'", 'total_tokens > 10000'],
};
