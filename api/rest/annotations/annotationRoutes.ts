import { z } from 'zod';
import { InvalidAnnotationsError } from '../../../domain/annotations/annotationDecider.ts';
import { batchProblems } from '../../../domain/annotations/annotationRecord.ts';
import { ANNOTATOR_KINDS, type AnnotationRecord, type AnnotationTarget, type AnnotatorKind } from '../../../domain/annotations/events.ts';
import { deleteAnnotations } from '../../../domain/annotations/deleteAnnotations.ts';
import { recordAnnotations } from '../../../domain/annotations/recordAnnotations.ts';
import { actingUserId, isAdmin } from '../../../domain/access/principal.ts';
import { annotationKey } from '../../../domain/annotations/annotationKey.ts';
import {
  annotationIdsByKey,
  knownTargets,
  listAnnotations,
  targetProjectRowids,
} from '../../../projections/annotations/annotationQueries.ts';
import { documentCounts } from '../../../projections/annotations/documentCountQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { toGlobalId } from '../../http/globalId.ts';
import { HttpError } from '../../http/httpError.ts';
import { describeIssues } from '../../http/parseBody.ts';
import { type RequireProject, routeKit, type Route } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { boolParam, isoTimeParam, limitParam, repeated, single } from '../../http/queryParams.ts';
import { resolveProject } from '../projects/resolveProject.ts';
import { byRowid, cursorOf, page } from '../../http/page.ts';
import {
  ANNOTATION_TYPE,
  annotationFromJson,
  annotationIdSchema,
  annotationSchema,
  annotationItem,
  annotationJson,
  noteBody,
  noteFromJson,
} from './annotationJson.ts';
import type { CommandContext } from '../../../domain/handleCommand.ts';
import { NO_CONTENT } from '../../http/answer.ts';
import { dataOf, listOf, pageOf } from '../../http/responseSchemas.ts';

const NOUN = { span: 'Spans', document: 'Spans', trace: 'Traces', session: 'Sessions' } as const;
const SCOPE = { span: 'span', document: 'span', trace: 'trace', session: 'session' } as const;

const refuse = (problems: InvalidAnnotationsError['problems'], where: (i: number) => string): HttpError =>
  new HttpError(
    422,
    'invalid_annotation',
    problems
      .slice(0, 5)
      .map(({ index, problem }) => `${where(index)}.${problem.path.join('.')}: ${problem.message}`)
      .join('; '),
  );

/** The domain's rules first: a 422 naming `body.data.<index>.<field>` comes before any lookup. */
const checkAnnotations = (annotations: readonly AnnotationRecord[], asNotes: boolean, where: (i: number) => string): void => {
  const problems = batchProblems(annotations, asNotes);
  if (problems.length > 0) throw refuse(problems, where);
};

/** One append; the decider's refusal (the same rules) as the same 422. */
const recordOrRefuse = async (
  context: CommandContext,
  deps: AppDeps,
  annotations: readonly AnnotationRecord[],
  asNotes: boolean,
  where: (i: number) => string,
) => {
  try {
    return await recordAnnotations(deps.store, { type: 'RecordAnnotations', source: 'API', annotations, asNotes }, context);
  } catch (error) {
    if (error instanceof InvalidAnnotationsError) throw refuse(error.problems, where);
    throw error;
  }
};

/** The reference's 404 for targets a synchronous write needs: `Spans with IDs a, b do not exist.` */
const requireTargets = async (deps: AppDeps, target: AnnotationTarget, ids: readonly string[]) => {
  const known = await knownTargets(deps.pool, SCOPE[target], ids);
  const missing = [...new Set(ids)].filter((id) => !known.has(id));
  if (missing.length > 0)
    throw new HttpError(404, `${SCOPE[target]}_not_found`, `${NOUN[target]} with IDs ${missing.slice(0, 20).join(', ')} do not exist.`);
};

/**
 * The project dimension of `annotate` for every project the targets are in: a target in a project
 * hidden from the caller answers as a missing one (404 naming only the ids sent), one whose grant
 * does not hold `annotate` 403. Targets not received yet are checked against the global table.
 */
const requireTargetProjects = async (deps: AppDeps, target: AnnotationTarget, ids: readonly string[], requireProject: RequireProject) => {
  const notFound = () =>
    new HttpError(404, `${SCOPE[target]}_not_found`, `${NOUN[target]} with IDs ${[...new Set(ids)].slice(0, 20).join(', ')} do not exist.`);
  const projects = await targetProjectRowids(deps.pool, SCOPE[target], ids);
  for (const rowid of projects) await requireProject(rowid, notFound);
  if (projects.length === 0) await requireProject(null, notFound);
};

/** With `sync=true`, as the reference: a document position must be below the span's number of documents. */
const requireDocuments = async (deps: AppDeps, annotations: readonly AnnotationRecord[]) => {
  const counts = await documentCounts(
    deps.pool,
    annotations.map((a) => a.targetId),
  );
  const i = annotations.findIndex((a) => typeof a.documentPosition === 'number' && a.documentPosition >= (counts.get(a.targetId) ?? 0));
  if (i >= 0) {
    const n = counts.get(annotations[i]!.targetId) ?? 0;
    throw new HttpError(422, 'invalid_annotation', `body.data.${i}.document_position: the span has ${n} document${n === 1 ? '' : 's'}`);
  }
};

/** Row ids of what was just written, in request order (read-your-writes first). */
const idsOf = async (deps: AppDeps, target: AnnotationTarget, annotations: readonly AnnotationRecord[]) => {
  const ids = await annotationIdsByKey(deps.pool, annotations.map(annotationKey));
  return annotations.map((a) => ({ id: toGlobalId(ANNOTATION_TYPE[target], String(ids.get(annotationKey(a)) ?? 0)) }));
};

const syncQuery = z.object({ sync: boolParam(false) });

/**
 * `POST /v1/{span,trace,session,document}_annotations`: one event for the whole batch. With
 * `sync=false` (the default) the answer is `{"data": []}` once the event is durable, whether or
 * not the targets exist yet (they attach when they arrive); with `sync=true` every target must
 * exist (404 naming the missing ones) and the answer lists each annotation's id in request order.
 */
const annotate = (route: Route, deps: AppDeps, target: AnnotationTarget) =>
  route({
    method: 'POST',
    path: `/v1/${target}_annotations`,
    query: syncQuery,
    body: z.object({ data: z.array(annotationItem[target]) }),
    responses: { 200: listOf(annotationIdSchema) },
    handler: async ({ context, query: { sync }, body, settle, requireProject }) => {
      const annotations = body.data.map((item) => annotationFromJson(target, item as Record<string, unknown>));
      checkAnnotations(annotations, false, (i) => `body.data.${i}`);
      await requireTargetProjects(
        deps,
        target,
        annotations.map((a) => a.targetId),
        requireProject,
      );
      if (sync)
        await requireTargets(
          deps,
          target,
          annotations.map((a) => a.targetId),
        );
      if (sync && target === 'document') await requireDocuments(deps, annotations);
      const position = await recordOrRefuse(context, deps, annotations, false, (i) => `body.data.${i}`);
      if (!sync) {
        await settle(position, { whenSlow: 'answer' });
        return { data: [] };
      }
      await settle(position);
      return { data: await idsOf(deps, target, annotations) };
    },
  });

/** `POST /v1/{span,trace,session}_notes`: always synchronous; the target must exist. */
const note = (route: Route, deps: AppDeps, target: 'span' | 'trace' | 'session') =>
  route({
    method: 'POST',
    path: `/v1/${target}_notes`,
    body: noteBody[target],
    responses: { 200: dataOf(annotationIdSchema) },
    handler: async ({ body, command, requireProject, context }) => {
      const annotation = noteFromJson(target, body.data as Record<string, string | undefined>);
      checkAnnotations([annotation], true, () => 'body.data');
      await requireTargetProjects(deps, target, [annotation.targetId], requireProject);
      await requireTargets(deps, target, [annotation.targetId]);
      await command(() => recordOrRefuse(context, deps, [annotation], true, () => 'body.data'));
      return { data: (await idsOf(deps, target, [annotation]))[0] };
    },
  });

const nonEmptyList = repeated.refine((v) => v === undefined || v.every((s) => s !== ''), 'each value must be non-empty');
const targetIdsParam = repeated.refine((v) => v === undefined || new Set(v).size <= 1000, 'at most 1000 distinct ids');
const listQuery = z.object({
  identifier: nonEmptyList.refine((v) => v === undefined || v.length <= 1000, 'at most 1000 identifiers'),
  include_annotation_names: repeated,
  exclude_annotation_names: repeated,
  cursor: single,
  limit: limitParam(10, 10_000),
});

/** `GET /v1/projects/{id}/{span,trace,session}_annotations`: by target ids and/or identifiers, newest first. */
const list = (route: Route, deps: AppDeps, target: 'span' | 'trace' | 'session') => {
  const idParam = `${target}_ids`;
  return route({
    method: 'GET',
    path: `/v1/projects/:project_identifier/${target}_annotations`,
    // The ids' parameter is named after the target (`span_ids`): read from the rest of the query.
    query: listQuery.loose(),
    responses: { 200: pageOf(annotationSchema) },
    handler: async ({ requireProject, params, query: q }) => {
      const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
      const parsedIds = targetIdsParam.safeParse((q as Record<string, unknown>)[idParam]);
      if (!parsedIds.success) throw new HttpError(422, 'invalid_query', describeIssues(`query.${idParam}`, parsedIds.error));
      const ids = parsedIds.data;
      if (ids === undefined && q.identifier === undefined)
        throw new HttpError(422, 'invalid_query', `query.${idParam}: either ${idParam} or identifier must be given`);
      const rows = await listAnnotations(deps.pool, {
        projectId: project.project_id,
        target,
        targetIds: ids,
        identifiers: q.identifier,
        includeNames: q.include_annotation_names,
        excludeNames: q.exclude_annotation_names,
        cursor: cursorOf(q.cursor),
        limit: q.limit,
      });
      if (rows.length === 0 && ids !== undefined && q.identifier === undefined) {
        const known = await knownTargets(deps.pool, target, ids, project.project_id);
        if (known.size === 0)
          throw new HttpError(404, `${target}_not_found`, `None of the ${target} ids were found in project ${project.name}`);
      }
      return page(rows, q.limit, byRowid(ANNOTATION_TYPE[target]), annotationJson);
    },
  });
};

const deleteQuery = z.object({
  name: single.refine((v) => v !== '', 'must be non-empty'),
  identifier: single.refine((v) => v !== '', 'must be non-empty'),
  annotator_kind: single.pipe(z.enum(ANNOTATOR_KINDS as [AnnotatorKind, ...AnnotatorKind[]]).optional()),
  start_time: isoTimeParam,
  end_time: isoTimeParam,
  delete_all: boolParam(false),
});

/**
 * `DELETE /v1/projects/{id}/{span,trace,session}_annotations`: a bounded time window or
 * `delete_all=true`, narrowed by the other filters. Someone who is not an admin deletes only the
 * annotations they wrote (with auth off there is no author to narrow by).
 */
const bulkDelete = (route: Route, deps: AppDeps, target: 'span' | 'trace' | 'session') =>
  route({
    method: 'DELETE',
    path: `/v1/projects/:project_identifier/${target}_annotations`,
    query: deleteQuery,
    responses: { 204: NO_CONTENT },
    handler: async ({ requireProject, params, query: q, command, context, principal }) => {
      const project = await resolveProject(deps.pool, params.project_identifier!, requireProject);
      if (!q.delete_all && (q.start_time === undefined || q.end_time === undefined))
        throw new HttpError(422, 'invalid_query', 'query.start_time: both start_time and end_time are required unless delete_all=true');
      if (q.start_time !== undefined && q.end_time !== undefined && !(Date.parse(q.start_time) < Date.parse(q.end_time)))
        throw new HttpError(422, 'invalid_query', 'query.start_time: must be before end_time');
      const authorUserId = principal === null || isAdmin(principal) ? null : actingUserId(principal);
      await command(() =>
        deleteAnnotations(
          deps.store,
          project.name,
          {
            type: 'DeleteAnnotations',
            projectId: project.project_id,
            target,
            name: q.name ?? null,
            identifier: q.identifier ?? null,
            annotatorKind: q.annotator_kind ?? null,
            createdFrom: q.start_time ?? null,
            createdBefore: q.end_time ?? null,
            authorUserId,
          },
          context,
        ),
      );
    },
  });

export const annotationRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    ...(['span', 'trace', 'session', 'document'] as const).map((target) => annotate(route, deps, target)),
    ...(['span', 'trace', 'session'] as const).map((target) => note(route, deps, target)),
    ...(['span', 'trace', 'session'] as const).flatMap((target) => [list(route, deps, target), bulkDelete(route, deps, target)]),
  ];
};
