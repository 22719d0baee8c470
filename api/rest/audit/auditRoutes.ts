import { z } from 'zod';
import { listAuditEntries } from '../../../projections/audit/auditTrailQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { byRowid, cursorOf, page } from '../../http/page.ts';
import { isoTimeParam, limitParam, repeated, single } from '../../http/queryParams.ts';
import { pageOf } from '../../http/responseSchemas.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { AUDIT_EVENT_TYPE, auditEventJson, auditEventSchema } from './auditEventJson.ts';
import { resolveAuditFilter } from './resolveAuditFilter.ts';

const listQuery = z.object({
  cursor: single,
  limit: limitParam(100, 1000),
  actor: single,
  /** Repeatable, or comma-separated. */
  type: repeated,
  resource: single,
  from: isoTimeParam,
  to: isoTimeParam,
});

/** `GET /v1/audit/events`: the audit trail, newest first (admins; docs/AUDIT.md, "The audit trail"). */
export const auditRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/audit/events',
      query: listQuery,
      responses: { 200: pageOf(auditEventSchema) },
      handler: async ({ query }) => {
        const filter = await resolveAuditFilter(
          deps.pool,
          { actor: query.actor, types: query.type, resource: query.resource, from: query.from, to: query.to },
          { actor: 'query.actor', types: 'query.type', resource: 'query.resource', from: 'query.from', to: 'query.to' },
        );
        const rows = await listAuditEntries(deps.pool, filter, { cursor: cursorOf(query.cursor), limit: query.limit });
        return page(rows, query.limit, byRowid(AUDIT_EVENT_TYPE), auditEventJson);
      },
    }),
  ];
};
