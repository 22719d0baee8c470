import type { AuditResourceType } from '../../../domain/audit/describeEvent.ts';
import type { AuditRow } from '../../../projections/audit/auditTrailQueries.ts';
import { z } from 'zod';
import { globalIdOf, toGlobalId } from '../../http/globalId.ts';
import { anyJson, isoTime } from '../../http/responseSchemas.ts';

export const AUDIT_EVENT_TYPE = 'AuditEvent';

export type AuditActorKind = 'user' | 'api_key' | 'system' | 'policy' | 'operator' | 'anonymous';

/** Who an actor string (`user:<id>`, `apikey:<id>`, `system`, `retention:<policy>`, ...) is. */
export const actorOf = (actor: string, name: string | null) => {
  const [prefix, rest] = actor.includes(':') ? [actor.slice(0, actor.indexOf(':')), actor.slice(actor.indexOf(':') + 1)] : [actor, ''];
  const kind: AuditActorKind =
    prefix === 'user'
      ? 'user'
      : prefix === 'apikey'
        ? 'api_key'
        : prefix === 'retention'
          ? 'policy'
          : prefix === 'operator'
            ? 'operator'
            : prefix === 'anonymous' || prefix === 'unauthenticated'
              ? 'anonymous'
              : 'system';
  return {
    actor,
    kind,
    /** A username, an API key's name, the policy's name; null when the trail never learnt one. */
    name: kind === 'policy' ? `retention policy ${rest}` : name,
    /** The user's GlobalID (REST's `User:<id>`), for a link to them; null for other actors. */
    user_id: kind === 'user' ? toGlobalId('User', rest) : null,
  };
};

/**
 * Where the UI shows a resource (a path inside the app, without the root path), or null when it
 * has no page (deleted, or nothing to open).
 */
const linkOf = (row: AuditRow, globalId: string | null): string | null => {
  const exists = row.resourceRowid !== null;
  switch (row.resourceType) {
    case 'Project':
      return exists ? `/projects/${globalId}` : null;
    case 'Prompt':
      return exists && row.resourceName !== null ? `/prompts/${encodeURIComponent(row.resourceName)}` : null;
    case 'Dataset':
      return exists ? `/datasets/${globalId}` : null;
    case 'Experiment':
      return exists && row.resourceParentRowid !== null
        ? `/datasets/${globalIdOf('Dataset', row.resourceParentRowid)}/experiments/${globalId}`
        : null;
    case 'User':
      return '/settings/users';
    case 'UserApiKey':
    case 'SystemApiKey':
      return '/settings/api-keys';
    case 'Secret':
      return '/settings/secrets';
    case 'AnnotationConfig':
      return '/settings/annotations';
    case 'ModelPrice':
      return '/settings/models';
    default:
      return null;
  }
};

/** The resource's GlobalID as the rest of the API names it; null when it has none (deleted, or no id of its own). */
const globalIdOfResource = (row: AuditRow): string | null => {
  const type = row.resourceType as AuditResourceType | null;
  if (type === null || row.resourceKey === null) return null;
  if (type === 'Project' || type === 'Prompt' || type === 'Dataset' || type === 'Experiment')
    return row.resourceRowid === null ? null : globalIdOf(type, row.resourceRowid);
  if (type === 'User' || type === 'UserApiKey' || type === 'SystemApiKey' || type === 'Secret') return toGlobalId(type, row.resourceKey);
  return null;
};

/**
 * One audit entry on the wire (REST and GraphQL alike): when, what, who, on which request, to
 * what (with a link the UI can open), the change told for a person. Never a secret value,
 * password, hash, token or key: entries are built from a whitelist of fields (describeEvent.ts).
 */
export const auditEventJson = (row: AuditRow) => {
  const globalId = globalIdOfResource(row);
  return {
    id: globalIdOf(AUDIT_EVENT_TYPE, row.id),
    kind: row.kind,
    position: row.position,
    event_id: row.eventId,
    time: row.at,
    type: row.type,
    actor: actorOf(row.actor, row.actorName),
    request_id: row.requestId,
    resource:
      row.resourceType === null && row.stream === null
        ? null
        : {
            type: row.resourceType,
            id: globalId,
            name: row.resourceName,
            stream: row.stream,
            link: linkOf(row, globalId),
          },
    summary: row.summary,
    changes: row.changes.map((c) => ({ field: c.field, before: c.before, after: c.after })),
    erased: row.erasedBy === null ? null : { by: row.erasedBy },
    ingestion:
      row.ingestion === null
        ? null
        : {
            hour_start: row.at,
            hour_end: new Date(Date.parse(row.at) + 3_600_000).toISOString(),
            exports: row.ingestion.exports,
            spans: row.ingestion.spans,
            first_position: row.position,
            last_position: row.ingestion.lastPosition,
            last_time: row.ingestion.lastAt,
          },
  };
};

export type AuditEventJson = ReturnType<typeof auditEventJson>;

/** `auditEventJson`'s shape, as the route declares it. */
export const auditEventSchema = z.object({
  id: z.string(),
  kind: z.enum(['event', 'ingestion']),
  position: z.string(),
  event_id: z.string().nullable(),
  time: isoTime,
  type: z.string(),
  actor: z.object({
    actor: z.string(),
    kind: z.enum(['user', 'api_key', 'system', 'policy', 'operator', 'anonymous']),
    name: z.string().nullable(),
    user_id: z.string().nullable(),
  }),
  request_id: z.string().nullable(),
  resource: z
    .object({
      type: z.string().nullable(),
      id: z.string().nullable(),
      name: z.string().nullable(),
      stream: z.string().nullable(),
      link: z.string().nullable(),
    })
    .nullable(),
  summary: z.string(),
  changes: z.array(z.object({ field: z.string(), before: anyJson, after: anyJson })),
  erased: z.object({ by: z.string() }).nullable(),
  ingestion: z
    .object({
      hour_start: isoTime,
      hour_end: isoTime,
      exports: z.number(),
      spans: z.number(),
      first_position: z.string(),
      last_position: z.string(),
      last_time: isoTime,
    })
    .nullable(),
});
