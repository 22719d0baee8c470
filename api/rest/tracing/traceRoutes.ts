import { z } from 'zod';
import { deleteTelemetry } from '../../../domain/tracing/deleteTelemetry.ts';
import { sessionIdsInProject } from '../../../projections/tracing/sessionQueries.ts';
import { findTrace, listTraces, spansOfTraces, type TraceRow, type TraceSpanRow } from '../../../projections/tracing/traceQueries.ts';
import { boundedQuery } from '../../../projections/filters/boundedQuery.ts';
import { filterConditions } from '../../../projections/filters/filterConditions.ts';
import type { AppDeps } from '../../appDeps.ts';
import { HttpError } from '../../http/httpError.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { isoFromMicros } from '../../http/pythonIsoTime.ts';
import { boolParam, enumParam, isoTimeParam, limitParam, repeated, single } from '../../http/queryParams.ts';
import { resolveProject } from '../projects/resolveProject.ts';
import { costJson, costSchema } from '../../http/costJson.ts';
import { globalIdOf, rowidOf } from '../../http/globalId.ts';
import { byRowid, cursorOf, page } from '../../http/page.ts';
import { NO_CONTENT } from '../../http/answer.ts';
import { pageOf, isoTime } from '../../http/responseSchemas.ts';

const listQuery = z.object({
  start_time: isoTimeParam,
  end_time: isoTimeParam,
  // cost_total (Loupe): traces without a cost come last, either way
  sort: enumParam(['start_time', 'latency_ms', 'cost_total'], 'start_time'),
  order: enumParam(['asc', 'desc'], 'desc'),
  limit: limitParam(100, 1000),
  cursor: single,
  include_spans: boolParam(false),
  session_identifier: repeated,
  /** The filter language on the trace (its aggregates) and its root span. */
  filter: single,
  /** Full-text search: traces with a span whose name, input or output has the words. */
  search: single,
});

const traceSpanJson = (s: TraceSpanRow) => ({
  id: globalIdOf('Span', s.id),
  span_id: s.span_id,
  parent_id: s.parent_id,
  name: s.name,
  span_kind: s.span_kind,
  status_code: s.status_code,
  start_time: isoFromMicros(s.start_us),
  end_time: isoFromMicros(s.end_us),
});

/** Phoenix's TraceData; token counts are the sums of the trace's LLM spans' own counts. */
const traceJson = (t: TraceRow, spans: readonly TraceSpanRow[] | null) => ({
  id: globalIdOf('Trace', t.id),
  trace_id: t.trace_id,
  project_id: globalIdOf('Project', t.project_id),
  start_time: isoFromMicros(t.start_us),
  end_time: isoFromMicros(t.end_us),
  token_count_prompt: t.token_count_prompt,
  token_count_completion: t.token_count_completion,
  token_count_total: t.token_count_prompt + t.token_count_completion,
  cost: costJson(t),
  spans: spans === null ? null : spans.map(traceSpanJson),
});

const traceSchema = z.object({
  id: z.string(),
  trace_id: z.string(),
  project_id: z.string(),
  start_time: isoTime,
  end_time: isoTime,
  token_count_prompt: z.number(),
  token_count_completion: z.number(),
  token_count_total: z.number(),
  cost: costSchema,
  spans: z
    .array(
      z.object({
        id: z.string(),
        span_id: z.string(),
        parent_id: z.string().nullable(),
        name: z.string(),
        span_kind: z.string(),
        status_code: z.string(),
        start_time: isoTime,
        end_time: isoTime,
      }),
    )
    .nullable(),
});

export const traceRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/projects/:project_identifier/traces',
      query: listQuery,
      responses: { 200: pageOf(traceSchema) },
      handler: async ({ requireProject, query: q, params }) => {
        const project = await resolveProject(deps.pool, params.project_identifier, requireProject);
        let sessionIds: readonly number[] | undefined;
        if (q.session_identifier !== undefined) {
          const rowids = q.session_identifier.map((s) => rowidOf('ProjectSession', s));
          sessionIds = await sessionIdsInProject(deps.pool, project.id, {
            ids: rowids.filter((r): r is number => r !== null),
            sessionIds: q.session_identifier.filter((_, i) => rowids[i] === null),
          });
        }
        const conditions = filterConditions('trace', q);
        const rows = await boundedQuery(deps.pool, conditions, { search: q.search }, (db) =>
          listTraces(
            db,
            {
              projectId: project.id,
              sort: q.sort,
              order: q.order,
              limit: q.limit,
              cursor: cursorOf(q.cursor),
              startTime: q.start_time,
              endTime: q.end_time,
              sessionIds,
            },
            conditions,
          ),
        );
        const shown = rows.slice(0, q.limit);
        const spans = q.include_spans
          ? await spansOfTraces(
              deps.pool,
              shown.map((t) => t.id),
            )
          : null;
        const byTrace = new Map<number, TraceSpanRow[]>();
        for (const s of spans ?? []) byTrace.set(s.trace_rowid, [...(byTrace.get(s.trace_rowid) ?? []), s]);
        return page(rows, q.limit, byRowid('Trace'), (t) => traceJson(t, spans === null ? null : (byTrace.get(t.id) ?? [])));
      },
    }),

    route({
      method: 'DELETE',
      path: '/v1/traces/:trace_identifier',
      responses: { 204: NO_CONTENT },
      handler: async ({ settle, requireProject, params, context }) => {
        const raw = params.trace_identifier;
        const rowid = rowidOf('Trace', raw);
        const trace = await findTrace(deps.pool, rowid !== null ? { id: rowid } : { traceId: raw.toLowerCase() });
        const notFound = () => new HttpError(404, 'trace_not_found', `Trace not found: ${raw}`);
        if (trace === null) throw notFound();
        await requireProject(trace.project_rowid, notFound);
        const position = await deleteTelemetry(
          deps.store,
          trace.project_name,
          { type: 'DeleteTraces', projectId: trace.project_id, traceIds: [trace.trace_id] },
          context,
        );
        await settle(position);
      },
    }),
  ];
};
