import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { costColumns } from './costColumns.ts';
import { micros } from './micros.ts';

/** A session's own columns (`sessionColumns` of `sessions s`): its aggregates over its traces. */
export const sessionAggregateRow = z.object({
  id: z.bigint().transform(Number),
  session_id: z.string(),
  start_us: z.bigint(),
  end_us: z.bigint(),
  trace_count: z.number(),
  token_count_prompt: z.bigint().transform(Number),
  token_count_completion: z.bigint().transform(Number),
  first_input: z.string().nullable(),
  first_input_mime_type: z.string().nullable(),
  last_output: z.string().nullable(),
  last_output_mime_type: z.string().nullable(),
  ...costColumns,
});

export const sessionColumns = sql.fragment`
  s.id, s.session_id, ${micros('s.start_time')} AS start_us, ${micros('s.end_time')} AS end_us, s.trace_count,
  s.token_count_prompt, s.token_count_completion, s.first_input, s.first_input_mime_type, s.last_output, s.last_output_mime_type,
  s.cost_prompt, s.cost_completion, s.cost_total`;

const sessionRow = sessionAggregateRow.extend({
  project_rowid: z.bigint().transform(Number),
  project_id: z.string(),
  project_name: z.string(),
});

export type SessionRow = z.infer<typeof sessionRow>;

const columns = sql.fragment`${sessionColumns}, p.id AS project_rowid, p.project_id::text AS project_id, p.name AS project_name`;

/** A project's sessions by row id (ascending by default), from `cursor` inclusive; `limit + 1` rows. */
export const listSessions = (
  db: CommonQueryMethods,
  f: { readonly projectId: number; readonly cursor: number | null; readonly limit: number; readonly order: 'asc' | 'desc' },
): Promise<readonly SessionRow[]> => {
  const desc = f.order === 'desc';
  const where = [
    sql.fragment`s.project_id = ${f.projectId}`,
    ...(f.cursor !== null ? [desc ? sql.fragment`s.id <= ${f.cursor}` : sql.fragment`s.id >= ${f.cursor}`] : []),
  ];
  return db.any(sql.type(sessionRow)`
    SELECT ${columns} FROM sessions s JOIN projects p ON p.id = s.project_id
    WHERE ${sql.join(where, sql.fragment` AND `)}
    ORDER BY s.id ${desc ? sql.fragment`DESC` : sql.fragment`ASC`}
    LIMIT ${f.limit + 1}`);
};

/** A session by row id or by its `session.id` (sessions ids are global, not per project). */
export const findSession = (
  db: CommonQueryMethods,
  key: { readonly id: number } | { readonly sessionId: string },
): Promise<SessionRow | null> =>
  db.maybeOne(sql.type(sessionRow)`
    SELECT ${columns} FROM sessions s JOIN projects p ON p.id = s.project_id
    WHERE ${'id' in key ? sql.fragment`s.id = ${key.id}` : sql.fragment`s.session_id = ${key.sessionId}`}`);

/** Row ids of the sessions among these that belong to the project (by row id or by `session.id`). */
export const sessionIdsInProject = (
  db: CommonQueryMethods,
  projectId: number,
  keys: { readonly ids: readonly number[]; readonly sessionIds: readonly string[] },
): Promise<readonly number[]> =>
  db.anyFirst(sql.type(z.object({ id: z.bigint().transform(Number) }))`
    SELECT id FROM sessions
    WHERE project_id = ${projectId}
      AND (id = ANY(${sql.array([...keys.ids], 'int8')}) OR session_id = ANY(${sql.array([...keys.sessionIds], 'text')}))`);

const sessionTraceRow = z.object({
  session_rowid: z.bigint().transform(Number),
  id: z.bigint().transform(Number),
  trace_id: z.string(),
  start_us: z.bigint(),
  end_us: z.bigint(),
});

export type SessionTraceRow = z.infer<typeof sessionTraceRow>;

/** The traces of these sessions, each session's by start time. */
export const tracesOfSessions = (db: CommonQueryMethods, sessionIds: readonly number[]): Promise<readonly SessionTraceRow[]> =>
  sessionIds.length === 0
    ? Promise.resolve([])
    : db.any(sql.type(sessionTraceRow)`
        SELECT t.session_id AS session_rowid, t.id, t.trace_id, ${micros('t.start_time')} AS start_us, ${micros('t.end_time')} AS end_us
        FROM traces t WHERE t.session_id = ANY(${sql.array([...sessionIds], 'int8')})
        ORDER BY t.session_id, t.start_time, t.id`);

const turnRow = z.object({
  trace_id: z.string(),
  start_us: z.bigint(),
  end_us: z.bigint(),
  input: z.string().nullable(),
  input_mime_type: z.string().nullable(),
  output: z.string().nullable(),
  output_mime_type: z.string().nullable(),
});

export type SessionTurnRow = z.infer<typeof turnRow>;

/** The turns of a session: each trace's root-span input and output, by trace start time. */
export const sessionTurns = (db: CommonQueryMethods, sessionId: number): Promise<readonly SessionTurnRow[]> =>
  db.any(sql.type(turnRow)`
    SELECT t.trace_id, ${micros('t.start_time')} AS start_us, ${micros('t.end_time')} AS end_us,
      sp.attributes->>'input.value' AS input, sp.attributes->>'input.mime_type' AS input_mime_type,
      sp.attributes->>'output.value' AS output, sp.attributes->>'output.mime_type' AS output_mime_type
    FROM traces t LEFT JOIN spans sp ON sp.span_id = t.root_span_id
    WHERE t.session_id = ${sessionId}
    ORDER BY t.start_time, t.id`);
