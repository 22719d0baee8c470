import { z } from 'zod';
import { DomainError } from '../../domain/errors.ts';
import { replaceSecrets } from '../../domain/secrets/replaceSecrets.ts';
import { cleanSecretKey, cleanSecretValue } from '../../domain/secrets/secretKey.ts';
import { listSecrets } from '../../projections/secrets/secretQueries.ts';
import type { AppDeps } from '../appDeps.ts';
import { commandContextOf, principalOf } from '../http/commandContextOf.ts';
import { HttpError } from '../http/httpError.ts';
import { parseBody, parseQuery } from '../http/parseBody.ts';
import type { RouteDef } from '../http/route.ts';
import { settle } from '../http/settle.ts';
import { userGlobalId } from './userJson.ts';

const putBody = z.object({
  // `value` must be present; null deletes.
  secrets: z.array(z.object({ key: z.string(), value: z.string().nullable() })).min(1),
});

/** The reference answers key/value rule breaks with 422, like any other malformed field. */
const checkEntry = (index: number, entry: { key: string; value: string | null }) => {
  try {
    cleanSecretKey(entry.key);
    if (entry.value !== null) cleanSecretValue(entry.value);
  } catch (error) {
    if (error instanceof DomainError) throw new HttpError(422, error.code, `body.secrets.${index}: ${error.message}`);
    throw error;
  }
};

/** Request order walked from the end, each key once: the reference's (last-wins) answer order. */
const summarise = (entries: readonly { key: string; value: string | null }[]) => {
  const seen = new Set<string>();
  const upserted: string[] = [];
  const deleted: string[] = [];
  for (const { key, value } of [...entries].reverse()) {
    const name = key.trim();
    if (seen.has(name)) continue;
    seen.add(name);
    (value === null ? deleted : upserted).push(name);
  }
  return { upserted_keys: upserted, deleted_keys: deleted };
};

const listQuery = z.object({
  search: z.string().optional(),
  cursor: z.string().optional(),
  limit: z.coerce.number().int().positive().max(1000).default(100),
});

export const secretRoutes = (deps: AppDeps): RouteDef[] => [
  {
    /** One atomic batch (one event): values are sealed before the event is built and never echoed. */
    method: 'PUT',
    path: '/v1/secrets',
    permission: 'secrets.manage',
    handler: async (ctx) => {
      const { secrets } = parseBody(ctx, putBody);
      secrets.forEach((entry, index) => checkEntry(index, entry));
      const principal = principalOf(ctx);
      const result = await replaceSecrets(
        deps.store,
        deps.identity.keyring,
        {
          entries: secrets,
          userId: principal === null || principal.kind === 'anonymous' ? null : principal.userId,
          now: deps.identity.now().toISOString(),
        },
        commandContextOf(ctx),
      );
      await settle(deps.runner, result.position);
      ctx.body = { data: summarise(secrets) };
    },
  },
  {
    /** The settings list: key names, owner and dates, searchable by key or owner; never a value. */
    method: 'GET',
    path: '/v1/secrets',
    permission: 'secrets.manage',
    handler: async (ctx) => {
      const query = parseQuery(ctx, listQuery);
      const page = await listSecrets(deps.pool, { search: query.search?.trim() || null, afterKey: query.cursor ?? null, limit: query.limit });
      ctx.body = {
        data: page.secrets.map((s) => ({
          key: s.key,
          owner: s.owner === null ? null : { id: userGlobalId(s.owner.userId), username: s.owner.username, email: s.owner.email },
          created_at: s.createdAt,
          updated_at: s.updatedAt,
        })),
        next_cursor: page.nextKey,
      };
    },
  },
];
