import { attributeMatches } from './attributeFilter.ts';
import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { JsonObject, JsonScalar } from '../../domain/base/jsonValue.ts';
import { costColumns } from './costColumns.ts';
import { micros } from './micros.ts';
import { withinTraces } from './withinTraces.ts';

export type StoredSpanEvent = { readonly name: string; readonly time_unix_nano: string; readonly attributes: JsonObject };

/** A stored span as the span queries read it (`spanColumns` of `spans s`). */
export const spanRow = z.object({
  id: z.bigint().transform(Number),
  span_id: z.string(),
  trace_id: z.string(),
  parent_id: z.string().nullable(),
  name: z.string(),
  span_kind: z.string(),
  otel_kind: z.string(),
  status_code: z.string(),
  status_message: z.string(),
  start_us: z.bigint(),
  end_us: z.bigint(),
  attributes: z.custom<JsonObject>((v) => typeof v === 'object' && v !== null),
  events: z.custom<readonly StoredSpanEvent[]>((v) => Array.isArray(v)),
  ...costColumns,
});

export type SpanRow = z.infer<typeof spanRow>;

/** The columns `spanRow` reads, from `spans` aliased `s`. */
export const spanColumns = sql.fragment`
  s.id, s.span_id, s.trace_id, s.parent_id, s.name, s.span_kind, s.otel_kind, s.status_code, s.status_message,
  ${micros('s.start_time')} AS start_us, ${micros('s.end_time')} AS end_us, s.attributes, s.events,
  s.cost_prompt, s.cost_completion, s.cost_total`;

/** Every filter is optional; lists are OR within, filters AND across (docs/reference/rest-facts.md §4.1). */
export type SpanFilter = {
  readonly projectId: number;
  readonly cursor: number | null;
  readonly limit: number;
  /** ISO timestamps: start inclusive, end exclusive, on the span's start time. */
  readonly startTime?: string;
  readonly endTime?: string;
  readonly traceIds?: readonly string[];
  readonly spanIds?: readonly string[];
  /** null: root spans only. */
  readonly parentId?: string | null;
  readonly names?: readonly string[];
  readonly spanKinds?: readonly string[];
  readonly statusCodes?: readonly string[];
  /** Equality on the flat attribute (jsonb containment: 5 matches 5 and 5.0; "5" only the string). */
  readonly attributes?: readonly { readonly key: string; readonly value: JsonScalar }[];
  /** Compiled conditions on `spans s` (the filter language and full-text search, projections/filters/). */
  readonly conditions?: readonly FragmentSqlToken[];
};

const text = (values: readonly string[]) => sql.array([...values], 'text');

/** The filter's conditions on `spans s`, every one but the cursor (whose meaning depends on the sort). */
export const spanFilterConditions = (f: SpanFilter) => [
  sql.fragment`s.project_id = ${f.projectId}`,
  ...(f.startTime !== undefined ? [sql.fragment`s.start_time >= ${f.startTime}::timestamptz`] : []),
  ...(f.endTime !== undefined ? [sql.fragment`s.start_time < ${f.endTime}::timestamptz`] : []),
  ...(f.traceIds?.length
    ? [
        sql.fragment`s.trace_rowid IN (SELECT id FROM traces WHERE trace_id = ANY(${text(f.traceIds)}))
          AND ${withinTraces(sql.fragment`trace_id = ANY(${text(f.traceIds)})`)}`,
      ]
    : []),
  ...(f.spanIds?.length ? [sql.fragment`s.span_id = ANY(${text(f.spanIds)})`] : []),
  ...(f.parentId === null
    ? [sql.fragment`s.parent_id IS NULL`]
    : f.parentId !== undefined
      ? [sql.fragment`s.parent_id = ${f.parentId}`]
      : []),
  ...(f.names?.length ? [sql.fragment`s.name = ANY(${text(f.names)})`] : []),
  ...(f.spanKinds?.length ? [sql.fragment`s.span_kind = ANY(${text(f.spanKinds)})`] : []),
  ...(f.statusCodes?.length ? [sql.fragment`s.status_code = ANY(${text(f.statusCodes)})`] : []),
  ...(f.attributes ?? []).map((a) => attributeMatches('s', a.key, a.value)),
  ...(f.conditions ?? []),
];

/** Newest first (row id descending, i.e. insertion order), from `cursor` inclusive; `limit + 1` rows. */
export const listSpans = (db: CommonQueryMethods, f: SpanFilter): Promise<readonly SpanRow[]> => {
  const where = [...spanFilterConditions(f), ...(f.cursor !== null ? [sql.fragment`s.id <= ${f.cursor}`] : [])];
  return db.any(sql.type(spanRow)`
    SELECT ${spanColumns}
    FROM spans s
    WHERE ${sql.join(where, sql.fragment` AND `)}
    ORDER BY s.id DESC
    LIMIT ${f.limit + 1}`);
};

const spanOwner = z.object({
  id: z.bigint().transform(Number),
  span_id: z.string(),
  trace_id: z.string(),
  project_rowid: z.bigint().transform(Number),
  project_id: z.string(),
  project_name: z.string(),
});

export type SpanOwner = z.infer<typeof spanOwner>;

/** A span by row id or OpenTelemetry span id, with the project it belongs to (for a deletion). */
export const findSpan = (db: CommonQueryMethods, key: { readonly id: number } | { readonly spanId: string }): Promise<SpanOwner | null> =>
  db.maybeOne(sql.type(spanOwner)`
    SELECT s.id, s.span_id, s.trace_id, p.id AS project_rowid, p.project_id::text AS project_id, p.name AS project_name
    FROM spans s JOIN projects p ON p.id = s.project_id
    WHERE ${'id' in key ? sql.fragment`s.id = ${key.id}` : sql.fragment`s.span_id = ${key.spanId}`}`);

/** Which of these span ids are stored already, in any project (span ids are global). */
export const existingSpanIds = async (db: CommonQueryMethods, spanIds: readonly string[]): Promise<Set<string>> =>
  spanIds.length === 0
    ? new Set()
    : new Set(
        await db.anyFirst(sql.type(z.object({ span_id: z.string() }))`SELECT span_id FROM spans WHERE span_id = ANY(${text(spanIds)})`),
      );
