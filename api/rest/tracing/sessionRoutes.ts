import { z } from 'zod';
import type { Position } from '../../../domain/eventstore/types.ts';
import { deleteTelemetryAcrossProjects } from '../../../domain/tracing/deleteTelemetryAcrossProjects.ts';
import {
  findSession,
  listSessions,
  sessionTurns,
  tracesOfSessions,
  type SessionRow,
  type SessionTraceRow,
  type SessionTurnRow,
} from '../../../projections/tracing/sessionQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { HttpError } from '../../http/httpError.ts';
import { type RequireProject, routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { isoFromMicros } from '../../http/pythonIsoTime.ts';
import { enumParam, limitParam, single } from '../../http/queryParams.ts';
import { withoutNul } from '../../http/rejectNulChars.ts';
import { resolveProject } from '../projects/resolveProject.ts';
import { costJson, costSchema } from '../../http/costJson.ts';
import { globalIdOf, rowidOf } from '../../http/globalId.ts';
import { byRowid, cursorOf, page } from '../../http/page.ts';
import type { CommandContext } from '../../../domain/handleCommand.ts';
import { NO_CONTENT } from '../../http/answer.ts';
import { dataOf, listOf, pageOf, isoTime } from '../../http/responseSchemas.ts';

/** Phoenix's SessionData: the session's traces by start time, token sums of its LLM spans. */
const sessionJson = (s: SessionRow, traces: readonly SessionTraceRow[]) => ({
  id: globalIdOf('ProjectSession', s.id),
  session_id: s.session_id,
  project_id: globalIdOf('Project', s.project_rowid),
  start_time: isoFromMicros(s.start_us),
  end_time: isoFromMicros(s.end_us),
  traces: traces.map((t) => ({
    id: globalIdOf('Trace', t.id),
    trace_id: t.trace_id,
    start_time: isoFromMicros(t.start_us),
    end_time: isoFromMicros(t.end_us),
  })),
  token_count_prompt: s.token_count_prompt,
  token_count_completion: s.token_count_completion,
  token_count_total: s.token_count_prompt + s.token_count_completion,
  cost: costJson(s),
});

/** A root span's input or output with its OpenInference mime type (text/plain when unset); null when the span has none. */
const ioJson = (value: string | null, mimeType: string | null) => (value === null ? null : { value, mime_type: mimeType ?? 'text/plain' });

/**
 * One turn of a conversation: a trace of the session with its root span's input and output, by
 * trace start time. Phoenix has no REST route for this (its UI reads it over GraphQL); ours is
 * `GET /v1/sessions/{session_identifier}/turns`, a read like the session itself.
 */
const turnJson = (t: SessionTurnRow) => ({
  trace_id: t.trace_id,
  start_time: isoFromMicros(t.start_us),
  end_time: isoFromMicros(t.end_us),
  input: ioJson(t.input, t.input_mime_type),
  output: ioJson(t.output, t.output_mime_type),
});

/** `{session_identifier}`: a ProjectSession GlobalID, else the `session.id` (global lookup). */
const lookup = (deps: AppDeps, identifier: string) => {
  const rowid = rowidOf('ProjectSession', identifier);
  return findSession(deps.pool, rowid !== null ? { id: rowid } : { sessionId: identifier });
};

/** The session named in the path; one in a project hidden from the caller is not found either. */
const sessionParam = async (deps: AppDeps, raw: string, requireProject: RequireProject): Promise<SessionRow> => {
  const session = await lookup(deps, raw);
  const notFound = () => new HttpError(404, 'session_not_found', `Session not found: ${raw}`);
  if (session === null) throw notFound();
  await requireProject(session.project_rowid, notFound);
  return session;
};

/** Sessions of several projects may be deleted together: one deletion append per project. */
const deleteSessions = (deps: AppDeps, context: CommandContext, sessions: readonly SessionRow[]): Promise<Position | null> =>
  deleteTelemetryAcrossProjects(
    deps.store,
    'sessions',
    sessions.map((s) => ({ projectId: s.project_id, projectName: s.project_name, id: s.session_id })),
    context,
  );

const sessionSchema = z.object({
  id: z.string(),
  session_id: z.string(),
  project_id: z.string(),
  start_time: isoTime,
  end_time: isoTime,
  traces: z.array(z.object({ id: z.string(), trace_id: z.string(), start_time: isoTime, end_time: isoTime })),
  token_count_prompt: z.number(),
  token_count_completion: z.number(),
  token_count_total: z.number(),
  cost: costSchema,
});
const ioSchema = z.object({ value: z.string(), mime_type: z.string() }).nullable();
const turnSchema = z.object({ trace_id: z.string(), start_time: isoTime, end_time: isoTime, input: ioSchema, output: ioSchema });

const listQuery = z.object({ cursor: single, limit: limitParam(100), order: enumParam(['asc', 'desc'], 'asc') });
const deleteBody = z.object({ session_identifiers: z.array(z.string().refine(withoutNul, 'must not contain NUL characters')).min(1) });

export const sessionRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/projects/:project_identifier/sessions',
      query: listQuery,
      responses: { 200: pageOf(sessionSchema) },
      handler: async ({ requireProject, query: q, params }) => {
        const project = await resolveProject(deps.pool, params.project_identifier, requireProject);
        const rows = await listSessions(deps.pool, { projectId: project.id, cursor: cursorOf(q.cursor), limit: q.limit, order: q.order });
        const traces = await tracesOfSessions(
          deps.pool,
          rows.slice(0, q.limit).map((s) => s.id),
        );
        const bySession = new Map<number, SessionTraceRow[]>();
        for (const t of traces) bySession.set(t.session_rowid, [...(bySession.get(t.session_rowid) ?? []), t]);
        return page(rows, q.limit, byRowid('ProjectSession'), (s) => sessionJson(s, bySession.get(s.id) ?? []));
      },
    }),

    route({
      method: 'GET',
      path: '/v1/sessions/:session_identifier',
      responses: { 200: dataOf(sessionSchema) },
      handler: async ({ requireProject, params }) => {
        const session = await sessionParam(deps, params.session_identifier, requireProject);
        return { data: sessionJson(session, await tracesOfSessions(deps.pool, [session.id])) };
      },
    }),

    route({
      method: 'GET',
      path: '/v1/sessions/:session_identifier/turns',
      responses: { 200: listOf(turnSchema) },
      handler: async ({ requireProject, params }) => {
        const session = await sessionParam(deps, params.session_identifier, requireProject);
        return { data: (await sessionTurns(deps.pool, session.id)).map(turnJson) };
      },
    }),

    route({
      method: 'DELETE',
      path: '/v1/sessions/:session_identifier',
      responses: { 204: NO_CONTENT },
      handler: async ({ settle, requireProject, params, context }) => {
        const session = await sessionParam(deps, params.session_identifier, requireProject);
        await settle(await deleteSessions(deps, context, [session]));
      },
    }),

    route({
      method: 'POST',
      path: '/v1/sessions/delete',
      body: deleteBody,
      responses: { 204: NO_CONTENT },
      handler: async ({ context, body: { session_identifiers: identifiers }, settle, access, requireProject }) => {
        const globalIds = identifiers.filter((s) => rowidOf('ProjectSession', s) !== null).length;
        if (globalIds !== 0 && globalIds !== identifiers.length) {
          throw new HttpError(
            422,
            'mixed_session_identifiers',
            'body.session_identifiers: use either all GlobalIDs or all session ids, not both',
          );
        }
        // Unknown sessions are skipped, as in Phoenix; so are those of projects hidden from the caller.
        const found = (await Promise.all(identifiers.map((s) => lookup(deps, s)))).filter((s): s is SessionRow => s !== null);
        const hidden = new Set((await access()).hidden);
        const sessions = found.filter((s) => !hidden.has(s.project_rowid));
        for (const s of sessions) await requireProject(s.project_rowid, () => new HttpError(404, 'session_not_found', 'Session not found'));
        await settle(await deleteSessions(deps, context, sessions));
      },
    }),
  ];
};
