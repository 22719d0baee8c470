import type { ProjectRow } from '../../projections/projects/projectQueries.ts';
import type { LightSpanRow, SessionDetailRow, TraceDetailRow } from '../../projections/tracing/graphQueries.ts';
import type { CostColumns } from '../../projections/tracing/costColumns.ts';
import type { SpanRow } from '../../projections/tracing/spanQueries.ts';
import { toGlobalId } from '../http/globalId.ts';
import { isoMicros } from './dateTimeScalar.ts';
import {
  type Cost,
  Project,
  ProjectSession,
  Span,
  type SpanDetails,
  type SpanIOValue,
  Trace,
  type SpanKind,
  type SpanStatusCode,
} from './types/tracingTypes.ts';

/** A cost from its three columns (null: nothing priced). */
export const costOf = (c: CostColumns): Cost | null =>
  c.cost_total === null ? null : { prompt: c.cost_prompt ?? 0, completion: c.cost_completion ?? 0, total: c.cost_total };

const gid = (type: string, rowid: number) => toGlobalId(type, String(rowid));
const ms = (startUs: bigint, endUs: bigint) => Number(endUs - startUs) / 1000;

export const ioValue = (value: unknown, mimeType: unknown): SpanIOValue | null => {
  if (value === undefined || value === null) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return {
    mimeType: typeof mimeType === 'string' && mimeType !== '' ? mimeType : 'text/plain',
    value: text,
    truncatedValue: text.slice(0, 100),
  };
};

export const projectOf = (p: ProjectRow): Project =>
  Object.assign(new Project(), {
    id: gid('Project', p.id),
    rowid: p.id,
    name: p.name,
    description: p.description,
    gradientStartColor: p.gradient_start_color,
    gradientEndColor: p.gradient_end_color,
    restricted: p.restricted,
  });

export const traceOf = (t: TraceDetailRow): Trace =>
  Object.assign(new Trace(), {
    id: gid('Trace', t.id),
    rowid: t.id,
    projectRowid: t.project_id,
    sessionRowid: t.session_id,
    rootSpanId: t.root_span_id,
    traceId: t.trace_id,
    startTime: isoMicros(t.start_us),
    endTime: isoMicros(t.end_us),
    latencyMs: ms(t.start_us, t.end_us),
    projectId: gid('Project', t.project_id),
    projectSessionId: t.session_id === null ? null : gid('ProjectSession', t.session_id),
    numSpans: t.span_count,
    errorCount: t.error_count,
    tokenCountPrompt: t.token_count_prompt,
    tokenCountCompletion: t.token_count_completion,
    tokenCountTotal: t.token_count_prompt + t.token_count_completion,
    cost: costOf(t),
  });

const count = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : null);

/**
 * A span from a full row (attributes and events included) or a light one (token counts from their
 * columns; attributes and events loaded on demand, batched, by the Span resolvers).
 */
export const spanOf = (s: (SpanRow & { readonly trace_rowid?: number }) | LightSpanRow, projectRowid: number): Span => {
  let prompt: number | null;
  let completion: number | null;
  let details: SpanDetails | null = null;
  if ('attributes' in s) {
    const a = s.attributes as Record<string, unknown>;
    const llm = s.span_kind === 'LLM';
    prompt = llm ? (count(a['llm.token_count.prompt']) ?? 0) : null;
    completion = llm ? (count(a['llm.token_count.completion']) ?? 0) : null;
    details = { attributes: a, events: s.events };
  } else {
    prompt = s.llm_token_count_prompt;
    completion = s.llm_token_count_completion;
  }
  return Object.assign(new Span(), {
    id: gid('Span', s.id),
    rowid: s.id,
    projectRowid,
    traceRowid: s.trace_rowid ?? null,
    details,
    spanId: s.span_id,
    name: s.name,
    spanKind: s.span_kind.toLowerCase() as SpanKind,
    statusCode: s.status_code as SpanStatusCode,
    statusMessage: s.status_message,
    startTime: isoMicros(s.start_us),
    endTime: isoMicros(s.end_us),
    latencyMs: ms(s.start_us, s.end_us),
    parentId: s.parent_id,
    context: { traceId: s.trace_id, spanId: s.span_id },
    tokenCountPrompt: prompt,
    tokenCountCompletion: completion,
    tokenCountTotal: prompt === null || completion === null ? null : prompt + completion,
    cost: costOf(s),
  });
};

export const sessionOf = (s: SessionDetailRow): ProjectSession =>
  Object.assign(new ProjectSession(), {
    id: gid('ProjectSession', s.id),
    rowid: s.id,
    projectRowid: s.project_id,
    sessionId: s.session_id,
    startTime: isoMicros(s.start_us),
    endTime: isoMicros(s.end_us),
    durationMs: ms(s.start_us, s.end_us),
    numTraces: s.trace_count,
    numTracesWithError: s.traces_with_error,
    firstInput: ioValue(s.first_input, s.first_input_mime_type),
    lastOutput: ioValue(s.last_output, s.last_output_mime_type),
    tokenUsage: {
      prompt: s.token_count_prompt,
      completion: s.token_count_completion,
      total: s.token_count_prompt + s.token_count_completion,
    },
    cost: costOf(s),
  });
