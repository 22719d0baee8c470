import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { ApiKeyKind } from '../../domain/apiKeys/events.ts';

export type ApiKeyRow = {
  readonly keyId: string;
  readonly kind: ApiKeyKind;
  readonly ownerUserId: string | null;
  readonly createdBy: string;
  readonly name: string;
  readonly description: string | null;
  readonly expiresAt: string | null;
  readonly createdAt: string;
};

const row = z.object({
  key_id: z.string(),
  kind: z.enum(['system', 'user']),
  owner_user_id: z.string().nullable(),
  created_by: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  expires_at: z.number().nullable(),
  created_at: z.number(),
});

// Never key_hash: listings have no use for it.
const COLUMNS = sql.fragment`key_id, kind, owner_user_id, created_by, name, description, expires_at, created_at`;

const toKey = (r: z.infer<typeof row>): ApiKeyRow => ({
  keyId: r.key_id,
  kind: r.kind,
  ownerUserId: r.owner_user_id,
  createdBy: r.created_by,
  name: r.name,
  description: r.description,
  expiresAt: r.expires_at === null ? null : new Date(r.expires_at).toISOString(),
  createdAt: new Date(r.created_at).toISOString(),
});

export const findApiKey = async (db: CommonQueryMethods, keyId: string): Promise<ApiKeyRow | null> => {
  const found = await db.maybeOne(sql.type(row)`SELECT ${COLUMNS} FROM api_keys WHERE key_id = ${keyId}`);
  return found === null ? null : toKey(found);
};

/** Keys of one kind, newest first; `ownerUserId` narrows user keys to one owner. */
export const listApiKeys = async (
  db: CommonQueryMethods,
  filter: { readonly kind: ApiKeyKind; readonly ownerUserId?: string },
): Promise<ApiKeyRow[]> => {
  const owner = filter.ownerUserId === undefined ? sql.fragment`TRUE` : sql.fragment`owner_user_id = ${filter.ownerUserId}`;
  const rows = await db.any(sql.type(row)`SELECT ${COLUMNS} FROM api_keys WHERE kind = ${filter.kind} AND ${owner} ORDER BY ordinal DESC`);
  return rows.map(toKey);
};

/** All users' keys, newest first; `fromKeyId` inclusive, null when that key does not exist. */
export const pageUserApiKeys = async (
  db: CommonQueryMethods,
  page: { readonly fromKeyId: string | null; readonly limit: number },
): Promise<{ readonly keys: readonly ApiKeyRow[]; readonly nextKeyId: string | null } | null> => {
  let bound = sql.fragment`TRUE`;
  if (page.fromKeyId !== null) {
    const ordinal = await db.maybeOneFirst(
      sql.type(z.object({ ordinal: z.bigint() }))`SELECT ordinal FROM api_keys WHERE key_id = ${page.fromKeyId} AND kind = 'user'`,
    );
    if (ordinal === null) return null;
    bound = sql.fragment`ordinal <= ${ordinal}`;
  }
  const rows = await db.any(sql.type(row)`
    SELECT ${COLUMNS} FROM api_keys WHERE kind = 'user' AND ${bound} ORDER BY ordinal DESC LIMIT ${page.limit + 1}`);
  return { keys: rows.slice(0, page.limit).map(toKey), nextKeyId: rows.length > page.limit ? rows[page.limit]!.key_id : null };
};
