import { z } from 'zod';
import type { Principal } from '../../../domain/access/principal.ts';
import { isAdmin } from '../../../domain/access/principal.ts';
import type { ApiKeyKind } from '../../../domain/apiKeys/events.ts';
import { checkApiKeyDescription, checkApiKeyExpiry, cleanApiKeyName } from '../../../domain/apiKeys/apiKeyText.ts';
import { issueApiKey } from '../../../domain/apiKeys/issueApiKey.ts';
import { revokeApiKey } from '../../../domain/apiKeys/revokeApiKey.ts';
import type { ApiKeyRow } from '../../../projections/apiKeys/apiKeyQueries.ts';
import { listApiKeys, pageUserApiKeys } from '../../../projections/apiKeys/apiKeyQueries.ts';
import { findUsers } from '../../../projections/identity/userQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { checkField, plainString, ruledString } from '../../http/fieldRule.ts';
import { settleAuthChange } from '../../http/settleAuthChange.ts';
import { fromGlobalId, toGlobalId } from '../../http/globalId.ts';
import { HttpError } from '../../http/httpError.ts';
import { checkedBody } from '../../http/parseBody.ts';
import { type RestRequest, routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { userGlobalId } from '../identity/userJson.ts';
import { NO_CONTENT } from '../../http/answer.ts';
import { dataOf, listOf, pageOf, isoTime } from '../../http/responseSchemas.ts';

const TYPE: Record<ApiKeyKind, string> = { user: 'UserApiKey', system: 'SystemApiKey' };

const keyJson = (key: Pick<ApiKeyRow, 'keyId' | 'kind' | 'name' | 'description' | 'createdAt' | 'expiresAt'>) => ({
  id: toGlobalId(TYPE[key.kind], key.keyId),
  name: key.name,
  description: key.description,
  created_at: key.createdAt,
  expires_at: key.expiresAt,
});

const keySchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  created_at: isoTime,
  expires_at: isoTime.nullable(),
});
/** The one answer that carries the key's value. */
const createdKey = dataOf(keySchema.extend({ key: z.string() }));

/** A datetime without a zone is UTC, as in the reference. */
const expiresAt = z
  .string()
  .nullable()
  .optional()
  .transform((value, issue) => {
    if (value === undefined || value === null) return null;
    const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`;
    const ms = Date.parse(zoned);
    if (Number.isNaN(ms)) {
      issue.addIssue({ code: 'custom', message: 'Invalid datetime' });
      return z.NEVER;
    }
    return new Date(ms).toISOString();
  });

const createBody = z.strictObject({
  data: z.strictObject({
    name: ruledString(cleanApiKeyName),
    description: ruledString(checkApiKeyDescription).nullable().optional(),
    expires_at: expiresAt,
  }),
});

const keyIdParam = (raw: string, kind: ApiKeyKind): string => {
  const id = fromGlobalId(TYPE[kind], raw);
  if (id === null) throw new HttpError(422, 'invalid_api_key_id', `Invalid ${TYPE[kind]} GlobalID format: ${raw}`);
  return id;
};

/** Issue a key; its value is in this response only and nowhere else (the log holds its hash). */
const create = async (
  deps: AppDeps,
  kind: ApiKeyKind,
  principal: Principal & { userId: string },
  { body, context, settle }: Pick<RestRequest<unknown, unknown, unknown>, 'body' | 'context' | 'settle'>,
) => {
  const { data } = checkedBody(createBody, body);
  const now = deps.identity.now().toISOString();
  if (data.expires_at !== null && !(Date.parse(data.expires_at) > Date.parse(now))) {
    throw new HttpError(422, 'invalid_body', 'body.data.expires_at: must be in the future');
  }
  checkField('body.data.expires_at', () => checkApiKeyExpiry(data.expires_at, now));
  const { keyId, value, result } = await issueApiKey(
    deps.store,
    {
      kind,
      ownerUserId: kind === 'user' ? principal.userId : null,
      createdBy: principal.userId,
      name: data.name,
      description: data.description ?? null,
      expiresAt: data.expires_at,
      now,
    },
    context,
  );
  await settle(result);
  return {
    data: {
      ...keyJson({ keyId, kind, name: data.name, description: data.description ?? null, createdAt: now, expiresAt: data.expires_at }),
      key: value,
    },
  };
};

const remove = async (
  deps: AppDeps,
  kind: ApiKeyKind,
  { params, principal, context }: Pick<RestRequest<{ readonly api_key_id: string }, unknown, unknown>, 'params' | 'principal' | 'context'>,
) => {
  const keyId = keyIdParam(params.api_key_id, kind);
  if (principal === null) throw new HttpError(401, 'unauthenticated', 'Authentication required');
  const result = await revokeApiKey(
    deps.store,
    {
      type: 'RevokeApiKey',
      keyId,
      kind,
      requester: { userId: principal.kind === 'anonymous' ? null : principal.userId, isAdmin: isAdmin(principal) },
      reason: 'deleted',
      now: deps.identity.now().toISOString(),
    },
    context,
  );
  await settleAuthChange(deps, result.position);
};

/** The caller as a person owning keys, or null for system principals (the admin secret, system keys). */
const personOf = (principal: Principal | null): (Principal & { userId: string }) | null => {
  if (principal === null || principal.kind === 'anonymous' || principal.kind === 'adminSecret' || principal.role === 'SYSTEM') return null;
  return principal;
};

const pageQuery = z.object({
  cursor: plainString({ maxLength: 256 }).optional(),
  limit: z.coerce.number().int().positive().max(1000).default(100),
});

export const apiKeyRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/user/api_keys',
      responses: { 200: listOf(keySchema) },
      handler: async ({ principal }) => {
        const person = personOf(principal);
        const keys = person === null ? [] : await listApiKeys(deps.pool, { kind: 'user', ownerUserId: person.userId });
        return { data: keys.map(keyJson) };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/user/api_keys',
      body: 'json',
      responses: { 201: createdKey },
      handler: (request) => create(deps, 'user', personOf(request.principal)!, request),
    }),
    route({
      method: 'DELETE',
      path: '/v1/user/api_keys/:api_key_id',
      responses: { 204: NO_CONTENT },
      handler: (request) => remove(deps, 'user', request),
    }),
    route({
      method: 'GET',
      path: '/v1/users/api_keys',
      query: pageQuery,
      responses: {
        200: pageOf(keySchema.extend({ user: z.object({ id: z.string(), username: z.string(), email: z.string().nullable() }) })),
      },
      handler: async ({ query }) => {
        const fromKeyId = query.cursor === undefined ? null : fromGlobalId(TYPE.user, query.cursor);
        const page =
          query.cursor !== undefined && fromKeyId === null ? null : await pageUserApiKeys(deps.pool, { fromKeyId, limit: query.limit });
        if (page === null) throw new HttpError(422, 'invalid_cursor', `Invalid cursor format: ${query.cursor}`);
        const owners = await findUsers(deps.pool, [...new Set(page.keys.map((k) => k.ownerUserId!))]);
        return {
          data: page.keys.map((key) => {
            const owner = owners.get(key.ownerUserId!);
            return {
              ...keyJson(key),
              user: { id: userGlobalId(key.ownerUserId!), username: owner?.username ?? '', email: owner?.email ?? null },
            };
          }),
          next_cursor: page.nextKeyId === null ? null : toGlobalId(TYPE.user, page.nextKeyId),
        };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/system/api_keys',
      responses: { 200: listOf(keySchema) },
      handler: async () => {
        return { data: (await listApiKeys(deps.pool, { kind: 'system' })).map(keyJson) };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/system/api_keys',
      body: 'json',
      responses: { 201: createdKey },
      handler: (request) => {
        const principal = request.principal!;
        if (principal.kind === 'anonymous') throw new HttpError(403, 'auth_disabled', 'Authentication is disabled');
        return create(deps, 'system', principal, request);
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/system/api_keys/:api_key_id',
      responses: { 204: NO_CONTENT },
      handler: (request) => remove(deps, 'system', request),
    }),
  ];
};
