import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { deleteTelemetryAcrossProjects, type TelemetryKind } from '../../../domain/tracing/deleteTelemetryAcrossProjects.ts';
import { findSession } from '../../../projections/tracing/sessionQueries.ts';
import { findSpan } from '../../../projections/tracing/spanQueries.ts';
import { findTrace } from '../../../projections/tracing/traceQueries.ts';
import { globalIdOf, rowidOf } from '../../http/globalId.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { Requires, requireProjectOf } from '../requires.ts';
import { DeletionPayload } from '../deletionPayload.ts';
import { noNul } from './inputText.ts';

type Owned = {
  readonly id: number;
  readonly key: string;
  readonly projectRowid: number;
  readonly projectId: string;
  readonly projectName: string;
};

const MAX_IDS = 1000;

/** Each id is a global id of `type` or the natural id (OpenTelemetry trace/span id, session.id). */
/**
 * Rows in projects hidden from the caller are skipped as unknown ones are; in a project it sees
 * where its role does not hold `telemetry.delete`, the whole mutation is refused (403).
 */
const resolveAll = async (
  ctx: GraphqlContext,
  ids: readonly string[],
  argument: string,
  find: (id: string) => Promise<Owned | null>,
): Promise<Owned[]> => {
  if (ids.length > MAX_IDS) throw gqlError('invalid_input', `Argument "${argument}": at most ${MAX_IDS} ids at once`);
  const found: Owned[] = [];
  for (const id of ids) {
    const row = await find(noNul(id, argument));
    if (row === null || found.some((f) => f.id === row.id) || ctx.access.hidden.includes(row.projectRowid)) continue;
    requireProjectOf(ctx, row.projectRowid, 'telemetry.delete', () => gqlError('not_found', 'Not found', 404));
    found.push(row);
  }
  return found;
};

/** One deletion append per project (the rows may come from several), then read-your-writes. */
const deleteByProject = async (ctx: GraphqlContext, kind: TelemetryKind, rows: readonly Owned[]) => {
  const owned = rows.map((r) => ({ projectId: r.projectId, projectName: r.projectName, id: r.key }));
  await ctx.settle(await deleteTelemetryAcrossProjects(ctx.deps.store, kind, owned, ctx.command));
};

/** The same deletion command as REST's DELETE /v1/traces, /v1/spans and /v1/sessions (one write path). */
@Resolver()
export class TelemetryMutations {
  @Mutation(() => DeletionPayload, { description: 'Trace global ids or OpenTelemetry trace ids; unknown ones are skipped' })
  @Requires('telemetry.delete')
  async deleteTraces(@Ctx() ctx: GraphqlContext, @Arg('traceIds', () => [ID]) traceIds: string[]): Promise<DeletionPayload> {
    const rows = await resolveAll(ctx, traceIds, 'traceIds', async (raw) => {
      const rowid = rowidOf('Trace', raw);
      const t = await findTrace(ctx.deps.pool, rowid !== null ? { id: rowid } : { traceId: raw.toLowerCase() });
      return t && { id: t.id, key: t.trace_id, projectRowid: t.project_rowid, projectId: t.project_id, projectName: t.project_name };
    });
    await deleteByProject(ctx, 'traces', rows);
    return { deletedIds: rows.map((r) => globalIdOf('Trace', r.id)) };
  }

  @Mutation(() => DeletionPayload, { description: 'Span global ids or OpenTelemetry span ids; unknown ones are skipped' })
  @Requires('telemetry.delete')
  async deleteSpans(@Ctx() ctx: GraphqlContext, @Arg('spanIds', () => [ID]) spanIds: string[]): Promise<DeletionPayload> {
    const rows = await resolveAll(ctx, spanIds, 'spanIds', async (raw) => {
      const rowid = rowidOf('Span', raw);
      const s = await findSpan(ctx.deps.pool, rowid !== null ? { id: rowid } : { spanId: raw.toLowerCase() });
      return s && { id: s.id, key: s.span_id, projectRowid: s.project_rowid, projectId: s.project_id, projectName: s.project_name };
    });
    await deleteByProject(ctx, 'spans', rows);
    return { deletedIds: rows.map((r) => globalIdOf('Span', r.id)) };
  }

  @Mutation(() => DeletionPayload, { description: 'ProjectSession global ids or session.id values; unknown ones are skipped' })
  @Requires('telemetry.delete')
  async deleteProjectSessions(@Ctx() ctx: GraphqlContext, @Arg('sessionIds', () => [ID]) sessionIds: string[]): Promise<DeletionPayload> {
    const rows = await resolveAll(ctx, sessionIds, 'sessionIds', async (raw) => {
      const rowid = rowidOf('ProjectSession', raw);
      const s = await findSession(ctx.deps.pool, rowid !== null ? { id: rowid } : { sessionId: raw });
      return s && { id: s.id, key: s.session_id, projectRowid: s.project_rowid, projectId: s.project_id, projectName: s.project_name };
    });
    await deleteByProject(ctx, 'sessions', rows);
    return { deletedIds: rows.map((r) => globalIdOf('ProjectSession', r.id)) };
  }
}
