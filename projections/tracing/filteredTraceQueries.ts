import { attributeMatches } from './attributeFilter.ts';
import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import type { JsonScalar } from '../../domain/base/jsonValue.ts';
import { listTraces, type TraceFilter, type TraceRow } from './traceQueries.ts';

/** The REST span filters, applied to a trace's root span (lists OR within, filters AND across). */
export type RootSpanFilter = {
  readonly traceIds?: readonly string[];
  readonly spanIds?: readonly string[];
  readonly names?: readonly string[];
  readonly spanKinds?: readonly string[];
  readonly statusCodes?: readonly string[];
  readonly attributes?: readonly { readonly key: string; readonly value: JsonScalar }[];
};

const text = (values: readonly string[]) => sql.array([...values], 'text');

const rootSpanConditions = (f: RootSpanFilter) => [
  ...(f.spanIds?.length ? [sql.fragment`r.span_id = ANY(${text(f.spanIds)})`] : []),
  ...(f.names?.length ? [sql.fragment`r.name = ANY(${text(f.names)})`] : []),
  ...(f.spanKinds?.length ? [sql.fragment`r.span_kind = ANY(${text(f.spanKinds)})`] : []),
  ...(f.statusCodes?.length ? [sql.fragment`r.status_code = ANY(${text(f.statusCodes)})`] : []),
  ...(f.attributes ?? []).map((a) => attributeMatches('r', a.key, a.value)),
];

/**
 * `listTraces` (same sort, cursor, time range and session filter) keeping only the traces whose
 * root span matches the span filters: the Traces tab is a table of root spans, so a filter there
 * means "traces whose root span is so", and the page still sorts by the trace's start or latency.
 * The root span is found through the partial `spans_roots` index, one probe per candidate trace.
 * Kept apart from traceQueries.ts so the projection's own files stay the projector's.
 */
export const listTracesWithRootFilter = (
  db: CommonQueryMethods,
  f: TraceFilter & { readonly rootSpan: RootSpanFilter },
  /** Further conditions on `traces t` (the filter language, projections/filters/). */
  extra: readonly FragmentSqlToken[] = [],
): Promise<readonly TraceRow[]> => {
  const root = rootSpanConditions(f.rootSpan);
  return listTraces(db, f, [
    ...(f.rootSpan.traceIds?.length ? [sql.fragment`t.trace_id = ANY(${text(f.rootSpan.traceIds)})`] : []),
    ...(root.length
      ? [
          sql.fragment`EXISTS (SELECT 1 FROM spans r WHERE r.trace_rowid = t.id AND r.parent_id IS NULL AND ${sql.join(root, sql.fragment` AND `)})`,
        ]
      : []),
    ...extra,
  ]);
};
