import { mayIngestInto } from '../../../domain/access/projectStanding.ts';
import { deleteTelemetry } from '../../../domain/tracing/deleteTelemetry.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import type { SpanRecord } from '../../../domain/tracing/events.ts';
import { contentEncodingOf } from '../../../ingest/decompress.ts';
import { bodyTooLarge } from '../../../ingest/readBody.ts';
import { withAdmittedBody } from '../../../ingest/withAdmittedBody.ts';
import { findProjectByName, type ProjectRow } from '../../../projections/projects/projectQueries.ts';
import { existingSpanIds, findSpan, listSpans } from '../../../projections/tracing/spanQueries.ts';
import { boundedQuery } from '../../../projections/filters/boundedQuery.ts';
import { filterConditions } from '../../../projections/filters/filterConditions.ts';
import type { AppDeps } from '../../appDeps.ts';
import { answer, NO_CONTENT, raw, rawBody } from '../../http/answer.ts';
import { HttpError } from '../../http/httpError.ts';
import { type RawUpload, routeKit, type RestRequest } from '../../http/restRoute.ts';
import { isoTime } from '../../http/responseSchemas.ts';
import { z } from 'zod';
import type { RouteDef } from '../../http/route.ts';
import { spanFilterQuery, type SpanFilterQuery } from './spanFilterQuery.ts';
import { jsonWithBigInts, otlpSpanJson, spanJson } from './spanJson.ts';
import { resolveProject } from '../projects/resolveProject.ts';
import { rowidOf } from '../../http/globalId.ts';
import { byRowid, cursorOf, page } from '../../http/page.ts';
import { pageOf } from '../../http/responseSchemas.ts';
import { costSchema } from '../../http/costJson.ts';

const spansOf = (deps: AppDeps, project: ProjectRow, q: SpanFilterQuery, withKinds: boolean) => {
  const conditions = filterConditions('span', q);
  return boundedQuery(deps.pool, conditions, { search: q.search }, (db) =>
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

/** Span ids looked up per query when checking for duplicates: a short step each on PGlite. */
const DUPLICATE_CHECK_CHUNK = 2000;

const storedSpanIds = async (deps: AppDeps, records: readonly SpanRecord[]): Promise<Set<string>> => {
  const stored = new Set<string>();
  for (let from = 0; from < records.length; from += DUPLICATE_CHECK_CHUNK) {
    const ids = records.slice(from, from + DUPLICATE_CHECK_CHUNK).map((r) => r.spanId);
    for (const id of await existingSpanIds(deps.pool, ids)) stored.add(id);
  }
  return stored;
};

/** FastAPI reads a body as JSON when it says so, or says nothing. */
const isJson = (contentType: string): boolean => {
  const mime = contentType.split(';')[0]!.trim().toLowerCase();
  return mime === '' || mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));
};

/**
 * `POST /v1/projects/{id}/spans`: all or nothing, like Phoenix. Spans that cannot be stored, or
 * whose span id exists already (anywhere: span ids are global) or repeats in the request, fail
 * the whole request with 400 and Phoenix's report, which `logSpans` turns into a SpanCreationError.
 * The body is admitted, read and decoded exactly as an OTLP export's (`withAdmittedBody`: the
 * in-flight budget and the projection-lag gate, 503 + Retry-After past them; 413 past the request
 * size; large bodies parsed off the main thread), and the spans are stored by the same
 * `ingestSpans`, in events of bounded size.
 */
const createSpans = async (
  deps: AppDeps,
  identifier: string,
  upload: RawUpload,
  {
    headers,
    principal,
    context,
    settle,
    requireProject,
  }: Pick<RestRequest<unknown, unknown, unknown>, 'headers' | 'principal' | 'context' | 'settle' | 'requireProject'>,
) => {
  // A GlobalID must name an existing project; a name is created on first use. An existing one is
  // checked before the body is read (hidden: 404, a grant without `ingest`: 403); the stream's
  // state is checked again when the spans are stored (`mayStoreInto`).
  const existing = rowidOf('Project', identifier) !== null ? null : await findProjectByName(deps.pool, identifier);
  if (existing !== null)
    await requireProject(existing.id, () => new HttpError(404, 'project_not_found', 'No project you can see has this name'));
  const projectName =
    rowidOf('Project', identifier) !== null ? (await resolveProject(deps.pool, identifier, requireProject)).name : identifier;
  const contentType = headers['content-type'] ?? '';
  if (!isJson(contentType))
    throw new HttpError(422, 'invalid_body', `body: expected JSON (Content-Type: application/json), got ${contentType}`);
  const { budget, decoder, pace } = deps.spanIngest;
  const maxBytes = deps.settings.maxRequestBytes;
  const declared = upload.length;
  if (declared !== undefined && declared > maxBytes) throw bodyTooLarge(maxBytes);
  const encoding = contentEncodingOf(headers['content-encoding'] || undefined);
  return await withAdmittedBody(upload.stream, { budget, maxBytes, encoding, pace }, async (body) => {
    const decoded = await decoder.decode({ body, format: 'phoenix', projectName });
    const verdict = decoded.phoenix!;
    if (verdict.kind === 'malformed') throw new HttpError(400, 'malformed_body', `Request body is not valid JSON: ${verdict.message}`);
    if (verdict.kind === 'not_envelope')
      throw new HttpError(
        422,
        'invalid_body',
        verdict.issues
          .slice(0, 5)
          .map((issue) => `${issue.loc.join('.')}: ${issue.msg}`)
          .join('; '),
      );
    if (verdict.kind === 'not_spans') {
      // FastAPI's validation shape: the client maps `loc` back to the spans it sent.
      return answer(422, { detail: verdict.issues, code: 'invalid_body' });
    }
    const records = decoded.batches.flatMap((b) => b.spans);
    const stored = await storedSpanIds(deps, records);
    const seen = new Set<string>();
    const duplicates = records.filter((r) => {
      const dup = stored.has(r.spanId) || seen.has(r.spanId);
      seen.add(r.spanId);
      return dup;
    });
    if (verdict.invalid.length > 0 || duplicates.length > 0) {
      const report = {
        error: 'Request contains invalid or duplicate spans',
        total_received: verdict.received,
        total_queued: 0,
        total_duplicates: duplicates.length,
        total_invalid: verdict.invalid.length,
        duplicate_spans: duplicates.map((d) => ({ span_id: d.spanId, trace_id: d.traceId })),
        invalid_spans: verdict.invalid,
      };
      return answer(400, { detail: JSON.stringify(report), code: 'invalid_spans' });
    }
    if (records.length > 0) {
      const position = await ingestSpans(deps.store, decoded.batches, context, {
        mayStoreInto: mayIngestInto(principal),
      });
      // Phoenix only queues the spans (202); waiting lets the caller read them right away, but the
      // spans are stored either way, so a slow read model must not turn into an error and a retry.
      await settle(position, { whenSlow: 'answer' });
    }
    return answer(202, { total_received: verdict.received, total_queued: records.length });
  });
};

/** `spanJson`'s shape (attributes and events are the span's own JSON). */
const spanSchema = z.object({
  id: z.string(),
  name: z.string(),
  context: z.object({ trace_id: z.string(), span_id: z.string() }),
  span_kind: z.string(),
  parent_id: z.string().nullable(),
  start_time: isoTime,
  end_time: isoTime,
  status_code: z.string(),
  status_message: z.string(),
  attributes: z.unknown(),
  events: z.array(z.unknown()),
  cost: costSchema,
});

/** Phoenix's answers to a spans upload: queued (202), or its FastAPI-shaped refusals. */
const createdSpans = z.object({ total_received: z.number(), total_queued: z.number() });
const refusal = z.object({ detail: z.unknown(), code: z.string() });

export const spanRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/projects/:project_identifier/spans',
      query: spanFilterQuery,
      responses: { 200: pageOf(spanSchema) },
      handler: async ({ requireProject, params, query }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        return page(await spansOf(deps, project, query, true), query.limit, byRowid('Span'), spanJson);
      },
    }),

    route({
      method: 'GET',
      path: '/v1/projects/:project_identifier/spans/otlpv1',
      query: spanFilterQuery,
      // JSON written by hand: nanosecond times are integers beyond 2^53 (jsonWithBigInts).
      responses: { 200: rawBody('application/json') },
      handler: async ({ requireProject, params, query }) => {
        const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
        const spans = page(await spansOf(deps, project, query, false), query.limit, byRowid('Span'), otlpSpanJson);
        return raw({ type: 'application/json', body: jsonWithBigInts(spans) });
      },
    }),

    route({
      method: 'POST',
      path: '/v1/projects/:project_identifier/spans',
      body: 'raw',
      responses: { 202: createdSpans, 400: refusal, 422: refusal },
      handler: (request) => createSpans(deps, request.params.project_identifier, request.body, request),
    }),

    route({
      method: 'DELETE',
      path: '/v1/spans/:span_identifier',
      responses: { 204: NO_CONTENT },
      handler: async ({ params, command, requireProject }) => {
        const raw = params.span_identifier!;
        const rowid = rowidOf('Span', raw);
        const span = await findSpan(deps.pool, rowid !== null ? { id: rowid } : { spanId: raw.toLowerCase() });
        const notFound = () => new HttpError(404, 'span_not_found', `Span not found: ${raw}`);
        if (span === null) throw notFound();
        await requireProject(span.project_rowid, notFound);
        await command((context) =>
          deleteTelemetry(
            deps.store,
            span.project_name,
            { type: 'DeleteSpans', projectId: span.project_id, spanIds: [span.span_id] },
            context,
          ),
        );
      },
    }),
  ];
};
