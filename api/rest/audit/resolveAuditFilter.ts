import type { CommonQueryMethods } from 'slonik';
import { AUDITED_TYPES, type AuditResourceType } from '../../../domain/audit/describeEvent.ts';
import { type AuditFilter, type AuditResourceFilter, resourceKeyOfRowid } from '../../../projections/audit/auditTrailQueries.ts';
import { HttpError, shown } from '../../http/httpError.ts';

/** The audit filters as sent (REST query parameters or GraphQL arguments), before they are checked. */
export type RawAuditFilter = {
  readonly actor?: string | null;
  readonly types?: readonly string[] | null;
  readonly resource?: string | null;
  /** Already checked ISO times (each side parses its own and names its own parameter). */
  readonly from?: string | null;
  readonly to?: string | null;
};

/** `<Type>:<id>` inside a GlobalID of any type, or null when `raw` is not one. */
const decoded = (raw: string): { readonly type: string; readonly id: string } | null => {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(raw)) return null;
  const m = /^([A-Za-z]+):([A-Za-z0-9_-]{1,64})$/.exec(Buffer.from(raw, 'base64').toString('utf8'));
  return m ? { type: m[1]!, id: m[2]! } : null;
};

/** A GlobalID REST hands out, for the resources the trail names by it. */
const BY_KEY = new Set<AuditResourceType>(['User', 'UserApiKey', 'SystemApiKey', 'Secret']);
const BY_ROWID = new Set<AuditResourceType>(['Project', 'Prompt', 'Dataset', 'Experiment']);

/** `actor`: as events record it (`user:<id>`, `apikey:<id>`, `system`, ...), or a user's or key's GlobalID. */
const actorFilter = (raw: string, parameter: string): string => {
  const value = raw.trim();
  if (value === '' || value.length > 300)
    throw new HttpError(422, 'invalid_query', `${parameter}: must be an actor or a GlobalID, got ${shown(raw)}`);
  const id = decoded(value);
  if (id?.type === 'User') return `user:${id.id}`;
  if (id?.type === 'UserApiKey' || id?.type === 'SystemApiKey') return `apikey:${id.id}`;
  return value;
};

/** `resource`: a GlobalID (user, key, secret, project, prompt, dataset, experiment) or an event stream's name. */
const resourceFilter = async (db: CommonQueryMethods, raw: string, parameter: string): Promise<AuditResourceFilter> => {
  const value = raw.trim();
  if (value === '' || value.length > 1000)
    throw new HttpError(422, 'invalid_query', `${parameter}: must be a GlobalID or a stream, got ${shown(raw)}`);
  const id = decoded(value);
  if (id === null) return { kind: 'stream', stream: value };
  const type = id.type as AuditResourceType;
  if (BY_KEY.has(type)) return { kind: 'resource', type, key: id.id };
  if (BY_ROWID.has(type)) {
    const key = /^\d{1,15}$/.test(id.id) ? await resourceKeyOfRowid(db, type, Number(id.id)) : null;
    if (key === null)
      throw new HttpError(422, 'invalid_query', `${parameter}: no ${type} ${shown(value)} exists (a deleted one is found by its stream)`);
    return { kind: 'resource', type, key };
  }
  throw new HttpError(
    422,
    'invalid_query',
    `${parameter}: the audit trail filters by GlobalIDs of ${[...BY_KEY, ...BY_ROWID].join(', ')}, not ${id.type}; give the stream instead`,
  );
};

/**
 * The filters checked and turned into what the trail stores: 422 naming the parameter (`names`
 * maps a filter to the name the caller used: `query.actor`, or a GraphQL argument).
 */
export const resolveAuditFilter = async (
  db: CommonQueryMethods,
  raw: RawAuditFilter,
  names: { readonly actor: string; readonly types: string; readonly resource: string; readonly from: string; readonly to: string },
): Promise<AuditFilter> => {
  const types =
    raw.types
      ?.flatMap((t) => t.split(','))
      .map((t) => t.trim())
      .filter(Boolean) ?? [];
  const unknown = types.filter((t) => !AUDITED_TYPES.includes(t));
  if (unknown.length > 0)
    throw new HttpError(
      422,
      'invalid_query',
      `${names.types}: unknown event type ${shown(unknown[0]!)} (e.g. UserCreated, RoleChanged, ApiKeyRevoked, SpansIngested)`,
    );
  if (raw.from && raw.to && raw.from > raw.to) throw new HttpError(422, 'invalid_query', `${names.to}: must not be before ${names.from}`);
  return {
    actor: raw.actor === null || raw.actor === undefined ? null : actorFilter(raw.actor, names.actor),
    types: types.length === 0 ? null : types,
    resource: raw.resource === null || raw.resource === undefined ? null : await resourceFilter(db, raw.resource, names.resource),
    from: raw.from ?? null,
    to: raw.to ?? null,
  };
};
