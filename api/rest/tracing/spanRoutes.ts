import type Koa from 'koa';
import { z } from 'zod';
import { buildSpanRecord } from '../../../domain/tracing/buildSpanRecord.ts';
import { deleteTelemetry } from '../../../domain/tracing/deleteTelemetry.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import type { SpanRecord } from '../../../domain/tracing/spanRecord.ts';
import { ProjectionTimeoutError } from '../../../projections/projectionRunner.ts';
import type { ProjectRow } from '../../../projections/projects/projectQueries.ts';
import { existingSpanIds, findSpan, listSpans } from '../../../projections/tracing/spanQueries.ts';
import { boundedQuery } from '../../../projections/filters/boundedQuery.ts';
import { filterConditions } from '../../../projections/filters/filterConditions.ts';
import type { AppDeps } from '../../appDeps.ts';
import { commandContextOf } from '../../http/commandContextOf.ts';
import { HttpError } from '../../http/httpError.ts';
import { describeIssues, parseQuery } from '../../http/parseBody.ts';
import type { RouteDef } from '../../http/route.ts';
import { settle } from '../../http/settle.ts';
import { spanFilterQuery, type SpanFilterQuery } from './spanFilterQuery.ts';
import { phoenixSpanInput, spanInputFromJson } from './spanInputFromJson.ts';
import { jsonWithBigInts, otlpSpanJson, spanJson } from './spanJson.ts';
import { resolveProject } from '../projects/resolveProject.ts';
import { tracingRoute } from './tracingRoute.ts';
import { rowidOf } from '../../http/globalId.ts';
import { byRowid, cursorOf, page } from '../../http/page.ts';

const spansOf = (deps: AppDeps, project: ProjectRow, q: SpanFilterQuery, withKinds: boolean) => {
  const conditions = filterConditions('span', q);
  return boundedQuery(deps.pool, conditions, (db) =>
    listSpans(db, {
      projectId: project.id,
      cursor: cursorOf(q.cursor),
      limit: q.limit,
      startTime: q.start_time,
      endTime: q.end_time,
      traceIds: q.trace_id?.map((id) => id.toLowerCase()),
      spanIds: q.span_id?.map((id) => id.toLowerCase()),
      parentId: q.parent_id === undefined ? undefined : q.parent_id === 'null' ? null : q.parent_id.toLowerCase(),
      names: q.name,
      spanKinds: withKinds ? q.span_kind : undefined,
      statusCodes: q.status_code,
      attributes: q.attribute,
      conditions,
    }),
  );
};

/**
 * `POST /v1/projects/{id}/spans`: all or nothing, like Phoenix. Spans that cannot be stored, or
 * whose span id exists already (anywhere: span ids are global) or repeats in the request, fail
 * the whole request with 400 and Phoenix's report, which `logSpans` turns into a SpanCreationError.
 */
const createSpans = (deps: AppDeps) => async (ctx: Koa.Context) => {
  const identifier = String(ctx.params.project_identifier);
  // A GlobalID must name an existing project; a name is created on first use.
  const projectName = rowidOf('Project', identifier) !== null ? (await resolveProject(deps.pool, identifier)).name : identifier;
  const envelope = z.object({ data: z.array(z.unknown()) }).safeParse((ctx.request as { body?: unknown }).body);
  if (!envelope.success) throw new HttpError(422, 'invalid_body', describeIssues('body', envelope.error));
  const issues: { loc: (string | number)[]; msg: string; type: string }[] = [];
  const parsed = envelope.data.data.map((raw, i) => {
    const r = phoenixSpanInput.safeParse(raw);
    if (!r.success)
      for (const issue of r.error.issues)
        issues.push({
          loc: ['body', 'data', i, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))],
          msg: issue.message,
          type: issue.code,
        });
    return r.success ? r.data : null;
  });
  if (issues.length > 0) {
    // FastAPI's validation shape: the client maps `loc` back to the spans it sent.
    ctx.status = 422;
    ctx.body = { detail: issues, code: 'invalid_body' };
    return;
  }
  const invalid: { span_id: string; trace_id: string; error: string }[] = [];
  const records: SpanRecord[] = [];
  for (const input of parsed) {
    const result = buildSpanRecord(spanInputFromJson(input!), 0);
    if (result.ok) records.push(result.span);
    else invalid.push({ span_id: input!.context.span_id, trace_id: input!.context.trace_id, error: result.reason });
  }
  const stored = await existingSpanIds(
    deps.pool,
    records.map((r) => r.spanId),
  );
  const seen = new Set<string>();
  const duplicates = records.filter((r) => {
    const dup = stored.has(r.spanId) || seen.has(r.spanId);
    seen.add(r.spanId);
    return dup;
  });
  const received = envelope.data.data.length;
  if (invalid.length > 0 || duplicates.length > 0) {
    const report = {
      error: 'Request contains invalid or duplicate spans',
      total_received: received,
      total_queued: 0,
      total_duplicates: duplicates.length,
      total_invalid: invalid.length,
      duplicate_spans: duplicates.map((d) => ({ span_id: d.spanId, trace_id: d.traceId })),
      invalid_spans: invalid,
    };
    ctx.status = 400;
    ctx.body = { detail: JSON.stringify(report), code: 'invalid_spans' };
    return;
  }
  if (records.length > 0) {
    const position = await ingestSpans(deps.store, [{ projectName, resources: [{}], spans: records }], commandContextOf(ctx));
    // Phoenix only queues the spans (202); waiting lets the caller read them right away, but the
    // spans are stored either way, so a slow read model must not turn into an error and a retry.
    await settle(deps.runner, position).catch((e: unknown) => {
      if (!(e instanceof ProjectionTimeoutError)) throw e;
    });
  }
  ctx.status = 202;
  ctx.body = { total_received: received, total_queued: records.length };
};

export const spanRoutes = (deps: AppDeps): RouteDef[] => [
  tracingRoute('GET', '/v1/projects/:project_identifier/spans', async (ctx) => {
    const project = await resolveProject(deps.pool, String(ctx.params.project_identifier));
    const q = parseQuery(ctx, spanFilterQuery);
    ctx.body = page(await spansOf(deps, project, q, true), q.limit, byRowid('Span'), spanJson);
  }),

  tracingRoute('GET', '/v1/projects/:project_identifier/spans/otlpv1', async (ctx) => {
    const project = await resolveProject(deps.pool, String(ctx.params.project_identifier));
    const q = parseQuery(ctx, spanFilterQuery);
    ctx.type = 'application/json';
    ctx.body = jsonWithBigInts(page(await spansOf(deps, project, q, false), q.limit, byRowid('Span'), otlpSpanJson));
  }),

  tracingRoute('POST', '/v1/projects/:project_identifier/spans', createSpans(deps)),

  tracingRoute('DELETE', '/v1/spans/:span_identifier', async (ctx) => {
    const raw = String(ctx.params.span_identifier);
    const rowid = rowidOf('Span', raw);
    const span = await findSpan(deps.pool, rowid !== null ? { id: rowid } : { spanId: raw.toLowerCase() });
    if (span === null) throw new HttpError(404, 'span_not_found', `Span not found: ${raw}`);
    const position = await deleteTelemetry(
      deps.store,
      span.project_name,
      { type: 'DeleteSpans', projectId: span.project_id, spanIds: [span.span_id] },
      commandContextOf(ctx),
    );
    await settle(deps.runner, position);
    ctx.status = 204;
  }),
];
