import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { listAuditEntries } from '../../../projections/audit/auditTrailQueries.ts';
import { AUDIT_EVENT_TYPE, auditEventJson } from '../../rest/audit/auditEventJson.ts';
import { resolveAuditFilter } from '../../rest/audit/resolveAuditFilter.ts';
import { DateTimeScalar } from '../dateTimeScalar.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { checkFirst, type Connection, connectionOf, emptyConnection, parseAfter } from '../relay.ts';
import { Requires } from '../requires.ts';
import { type AuditEvent, AuditEventConnection } from '../types/auditTypes.ts';

/** The REST entry (auditEventJson) in GraphQL's field names: one rendering for both. */
const auditEventOf = (json: ReturnType<typeof auditEventJson>): AuditEvent => ({
  id: json.id,
  kind: json.kind,
  position: json.position,
  eventId: json.event_id,
  time: json.time,
  type: json.type,
  actor: { actor: json.actor.actor, kind: json.actor.kind, name: json.actor.name, userId: json.actor.user_id },
  requestId: json.request_id,
  resource: json.resource,
  summary: json.summary,
  changes: json.changes,
  erasedBy: json.erased?.by ?? null,
  ingestion:
    json.ingestion === null
      ? null
      : {
          hourStart: json.ingestion.hour_start,
          hourEnd: json.ingestion.hour_end,
          exports: json.ingestion.exports,
          spans: json.ingestion.spans,
          firstPosition: json.ingestion.first_position,
          lastPosition: json.ingestion.last_position,
          lastTime: json.ingestion.last_time,
        },
});

@Resolver()
export class AuditQueryResolver {
  @Query(() => AuditEventConnection, { description: 'The audit trail, newest first (admins): the filters of GET /v1/audit/events' })
  @Requires('audit.read')
  async auditEvents(
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int, { defaultValue: 50 }) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
    @Arg('actor', () => String, { nullable: true, description: 'user:<id>, apikey:<id>, system, ... or a user’s or key’s GlobalID' })
    actor?: string | null,
    @Arg('types', () => [String], { nullable: true, description: 'Event types, e.g. RoleChanged' }) types?: string[] | null,
    @Arg('resource', () => String, { nullable: true, description: 'A GlobalID or an event stream' }) resource?: string | null,
    @Arg('from', () => DateTimeScalar, { nullable: true }) from?: string | null,
    @Arg('to', () => DateTimeScalar, { nullable: true }) to?: string | null,
  ): Promise<Connection<AuditEvent>> {
    const limit = checkFirst(first);
    const start = parseAfter(after, AUDIT_EVENT_TYPE);
    if (start.kind === 'end') return emptyConnection();
    const filter = await resolveAuditFilter(
      ctx.deps.pool,
      { actor, types, resource, from, to },
      {
        actor: 'Argument "actor"',
        types: 'Argument "types"',
        resource: 'Argument "resource"',
        from: 'Argument "from"',
        to: 'Argument "to"',
      },
    );
    const rows = await listAuditEntries(ctx.deps.pool, filter, { cursor: start.kind === 'from' ? start.rowid : null, limit });
    return connectionOf(rows, limit, AUDIT_EVENT_TYPE, (row) => auditEventOf(auditEventJson(row)), start.kind === 'from');
  }
}
