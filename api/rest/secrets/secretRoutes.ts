import { z } from 'zod';
import { secretBatchOutcome } from '../../../domain/secrets/secretBatchOutcome.ts';
import { replaceSecrets } from '../../../domain/secrets/replaceSecrets.ts';
import { cleanSecretKey, cleanSecretValue } from '../../../domain/secrets/secretKey.ts';
import { listSecrets } from '../../../projections/secrets/secretQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { checkField, plainString } from '../../http/fieldRule.ts';
import { isoTime } from '../../http/responseSchemas.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { userGlobalId } from '../identity/userJson.ts';

/** One request is one event: bounded so the single `secrets` stream grows by reasonable steps. */
const MAX_ENTRIES = 1000;

const putBody = z.strictObject({
  // `value` must be present; null deletes.
  secrets: z
    .array(z.strictObject({ key: z.string(), value: z.string().nullable() }))
    .min(1)
    .max(MAX_ENTRIES),
});

/** The reference answers key/value rule breaks with 422, like any other malformed field. */
const checkEntry = (index: number, entry: { key: string; value: string | null }) => {
  checkField(`body.secrets.${index}.key`, () => cleanSecretKey(entry.key));
  if (entry.value !== null) checkField(`body.secrets.${index}.value`, () => cleanSecretValue(entry.value!));
};

const listQuery = z.object({
  search: plainString({ maxLength: 1024 }).optional(),
  cursor: plainString({ maxLength: 256 }).optional(),
  limit: z.coerce.number().int().positive().max(1000).default(100),
});

const batchAnswer = z.object({ data: z.object({ upserted_keys: z.array(z.string()), deleted_keys: z.array(z.string()) }) });
const secretPage = z.object({
  data: z.array(
    z.object({
      key: z.string(),
      owner: z.object({ id: z.string(), username: z.string(), email: z.string().nullable() }).nullable(),
      created_at: isoTime,
      updated_at: isoTime,
    }),
  ),
  next_cursor: z.string().nullable(),
});

export const secretRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      /** One atomic batch (one event): values are sealed before the event is built and never echoed. */
      method: 'PUT',
      path: '/v1/secrets',
      body: putBody,
      responses: { 200: batchAnswer },
      handler: async ({ principal, context, body: { secrets }, settle }) => {
        secrets.forEach((entry, index) => checkEntry(index, entry));
        const result = await replaceSecrets(
          deps.store,
          deps.identity.keyring,
          {
            entries: secrets,
            userId: principal === null || principal.kind === 'anonymous' ? null : principal.userId,
            now: deps.identity.now().toISOString(),
          },
          context,
        );
        await settle(result.position);
        const outcome = secretBatchOutcome(secrets);
        return { data: { upserted_keys: outcome.upserted, deleted_keys: outcome.deleted } };
      },
    }),
    route({
      /** The settings list: key names, owner and dates, searchable by key or owner; never a value. */
      method: 'GET',
      path: '/v1/secrets',
      query: listQuery,
      responses: { 200: secretPage },
      handler: async ({ query }) => {
        const page = await listSecrets(deps.pool, {
          search: query.search?.trim() || null,
          afterKey: query.cursor ?? null,
          limit: query.limit,
        });
        return {
          data: page.secrets.map((s) => ({
            key: s.key,
            owner: s.owner === null ? null : { id: userGlobalId(s.owner.userId), username: s.owner.username, email: s.owner.email },
            created_at: s.createdAt,
            updated_at: s.updatedAt,
          })),
          next_cursor: page.nextKey,
        };
      },
    }),
  ];
};
