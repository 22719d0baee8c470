/** What the tracing pages read from GraphQL (the fields each query asks for, nothing more). */

export const SPAN_KINDS = [
  'agent',
  'chain',
  'embedding',
  'evaluator',
  'guardrail',
  'llm',
  'prompt',
  'reranker',
  'retriever',
  'tool',
  'unknown',
] as const;
export type SpanKind = (typeof SPAN_KINDS)[number];

export const STATUS_CODES = ['OK', 'ERROR', 'UNSET'] as const;
export type StatusCode = (typeof STATUS_CODES)[number];

export type IOPreview = { readonly truncatedValue: string; readonly mimeType: string; readonly preview?: string | null };
export type IOValue = { readonly value: string; readonly mimeType: string };

export type PageInfo = { readonly hasNextPage: boolean; readonly endCursor: string | null };
export type Page<T> = { readonly rows: readonly T[]; readonly pageInfo: PageInfo };

/** What a row of the Traces or Spans tab shows of its span (the columns SpanRowsTable draws for both). */
export type SpanRowColumns = {
  readonly name: string;
  readonly spanKind: SpanKind;
  readonly statusCode: StatusCode;
  readonly startTime: string;
  readonly latencyMs: number;
  readonly input: IOPreview | null;
  readonly output: IOPreview | null;
  readonly tokenCountTotal: number | null;
  /** USD; null when nothing of it is priced. */
  readonly cost: { readonly total: number } | null;
  /** The app's user the span names (`user.id`); null when none. */
  readonly userId: string | null;
};

/** One row of the Traces tab: a root span with its trace's totals. */
export type RootSpanRow = SpanRowColumns & {
  readonly traceId: string;
  readonly spanId: string | null;
  readonly numSpans: number;
};

/** One row of the Spans tab. */
export type SpanRow = SpanRowColumns & {
  readonly id: string;
  readonly spanId: string;
  readonly traceId: string;
  readonly parentId: string | null;
};

/** What both the Sessions tab and a session's page show of it. */
export type SessionSummary = {
  readonly id: string;
  readonly sessionId: string;
  /** The app's user its spans name (`user.id`); null when none does. */
  readonly userId: string | null;
  readonly startTime: string;
  readonly endTime: string;
  readonly durationMs: number;
  readonly numTraces: number;
  readonly numTracesWithError: number;
};

export type SessionRow = SessionSummary & {
  readonly firstInput: IOPreview | null;
  readonly lastOutput: IOPreview | null;
  readonly tokenUsage: { readonly total: number };
  readonly cost: { readonly total: number } | null;
};

/** A span as the trace tree needs it (no content: that is fetched for the selected span only). */
export type TreeSpan = {
  readonly id: string;
  readonly spanId: string;
  readonly parentId: string | null;
  readonly name: string;
  readonly spanKind: SpanKind;
  readonly statusCode: StatusCode;
  readonly startTime: string;
  readonly latencyMs: number;
  readonly tokenCountTotal: number | null;
};

export type TraceSummary = {
  readonly id: string;
  readonly traceId: string;
  readonly startTime: string;
  readonly endTime: string;
  readonly latencyMs: number;
  readonly numSpans: number;
  readonly errorCount: number;
  readonly tokenCountPrompt: number;
  readonly tokenCountCompletion: number;
  readonly tokenCountTotal: number;
  /** USD; null when nothing of it is priced. */
  readonly cost: { readonly prompt: number; readonly completion: number; readonly total: number } | null;
  /** Models of its LLM spans without a price ('' for spans naming none). */
  readonly unpricedModels: readonly string[];
  readonly session: { readonly id: string; readonly sessionId: string } | null;
};

export type SpanEvent = {
  readonly name: string;
  readonly timestamp: string;
  readonly message: string;
  readonly attributes: Record<string, unknown>;
};

/** The selected span with everything the details panel shows. */
export type SpanDetail = {
  readonly id: string;
  readonly spanId: string;
  readonly parentId: string | null;
  readonly name: string;
  readonly spanKind: SpanKind;
  readonly statusCode: StatusCode;
  readonly statusMessage: string;
  readonly startTime: string;
  readonly endTime: string;
  readonly latencyMs: number;
  readonly tokenCountPrompt: number | null;
  readonly tokenCountCompletion: number | null;
  readonly tokenCountTotal: number | null;
  readonly cost: { readonly prompt: number; readonly completion: number; readonly total: number } | null;
  readonly input: IOValue | null;
  readonly output: IOValue | null;
  /** Nested attributes (parsed from the JSON document the server sends). */
  readonly attributes: Record<string, unknown>;
  readonly events: readonly SpanEvent[];
  /** Annotations on its retrieved documents (relevance and the like), each naming its document's position. */
  readonly documentAnnotations: readonly DocumentAnnotation[];
};

export type DocumentAnnotation = {
  readonly name: string;
  readonly label: string | null;
  readonly score: number | null;
  readonly explanation: string | null;
  readonly annotatorKind: 'HUMAN' | 'LLM' | 'CODE';
  /** 0-based, in `retrieval.documents`. */
  readonly documentPosition: number | null;
};

export type SessionTurn = {
  readonly traceId: string;
  readonly startTime: string;
  readonly endTime: string;
  readonly input: IOValue | null;
  readonly output: IOValue | null;
  readonly trace: { readonly latencyMs: number; readonly tokenCountTotal: number; readonly errorCount: number };
};

export type SessionDetail = SessionSummary & {
  readonly tokenUsage: { readonly prompt: number; readonly completion: number; readonly total: number };
  readonly cost: { readonly prompt: number; readonly completion: number; readonly total: number } | null;
  readonly project: { readonly id: string; readonly name: string };
  readonly turns: readonly SessionTurn[];
};
