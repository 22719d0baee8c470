import { http } from '../api/http.ts';
import type { TimeRange } from '../time/timeRange.ts';
import type { SpanFilterState } from './spanFilters.ts';

/**
 * The Spans tab's download: every span its filters and time range select (not only the page
 * shown), read from REST (`GET /v1/projects/{id}/spans`, which takes the same filters) a thousand
 * at a time, as JSONL (REST's span objects, one a line) or CSV (one row a span, the columns a
 * spreadsheet needs).
 */
type RestSpan = {
  readonly id: string;
  readonly name: string;
  readonly context: { readonly trace_id: string; readonly span_id: string };
  readonly parent_id: string | null;
  readonly span_kind: string;
  readonly status_code: string;
  readonly start_time: string;
  readonly end_time: string;
  readonly attributes: Record<string, unknown>;
  readonly cost?: { readonly total: number } | null;
};

const queryOf = (timeRange: TimeRange, filter: SpanFilterState, rootSpansOnly: boolean): URLSearchParams => {
  const q = new URLSearchParams({ limit: '1000' });
  if (timeRange.start) q.set('start_time', timeRange.start);
  if (timeRange.end) q.set('end_time', timeRange.end);
  for (const name of filter.names) q.append('name', name);
  for (const kind of filter.spanKinds) q.append('span_kind', kind);
  for (const status of filter.statusCodes) q.append('status_code', status);
  for (const a of filter.attributes) q.append('attribute', `${a.key}:${a.value}`);
  if (filter.condition) q.set('filter', filter.condition);
  if (filter.search) q.set('search', filter.search);
  if (rootSpansOnly) q.set('parent_id', 'null');
  return q;
};

/** Every span selected, page after page; `onprogress` hears the count so far. */
export const fetchSpansForExport = async (
  args: { projectId: string; timeRange: TimeRange; filter: SpanFilterState; rootSpansOnly: boolean },
  onprogress: (count: number) => void,
  signal?: AbortSignal,
): Promise<RestSpan[]> => {
  const spans: RestSpan[] = [];
  const query = queryOf(args.timeRange, args.filter, args.rootSpansOnly);
  for (;;) {
    const page = await http<{ data: RestSpan[]; next_cursor: string | null }>(
      `/v1/projects/${encodeURIComponent(args.projectId)}/spans?${query}`,
      { signal },
    );
    spans.push(...page.data);
    onprogress(spans.length);
    if (page.next_cursor === null) return spans;
    query.set('cursor', page.next_cursor);
  }
};

export const spansAsJsonl = (spans: readonly RestSpan[]): string => spans.map((s) => `${JSON.stringify(s)}\n`).join('');

/**
 * A CSV cell: quoted when it holds a quote, comma or line break; span content is the sender's, so
 * text a spreadsheet would run as a formula (=, +, -, @ first) is kept as text with a leading '.
 */
const cell = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  let text =
    typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

const COLUMNS: readonly [string, (s: RestSpan) => unknown][] = [
  ['span_id', (s) => s.context.span_id],
  ['trace_id', (s) => s.context.trace_id],
  ['parent_id', (s) => s.parent_id],
  ['name', (s) => s.name],
  ['span_kind', (s) => s.span_kind],
  ['status_code', (s) => s.status_code],
  ['start_time', (s) => s.start_time],
  ['end_time', (s) => s.end_time],
  ['user_id', (s) => s.attributes['user.id']],
  ['session_id', (s) => s.attributes['session.id']],
  ['model', (s) => s.attributes['llm.model_name']],
  ['tokens_prompt', (s) => s.attributes['llm.token_count.prompt']],
  ['tokens_completion', (s) => s.attributes['llm.token_count.completion']],
  ['cost_usd', (s) => s.cost?.total],
  ['input', (s) => s.attributes['input.value']],
  ['output', (s) => s.attributes['output.value']],
];

export const spansAsCsv = (spans: readonly RestSpan[]): string =>
  [COLUMNS.map(([name]) => name).join(','), ...spans.map((s) => COLUMNS.map(([, of]) => cell(of(s))).join(','))]
    .map((line) => `${line}\r\n`)
    .join('');

/** Hands the browser a file to save. */
export const download = (text: string, fileName: string, type: string): void => {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
};
