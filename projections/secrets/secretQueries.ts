import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export type SecretListing = {
  readonly key: string;
  readonly owner: { readonly userId: string; readonly username: string; readonly email: string | null } | null;
  readonly createdAt: string;
  readonly updatedAt: string;
};

const row = z.object({
  key: z.string(),
  owner_user_id: z.string().nullable(),
  username: z.string().nullable(),
  email: z.string().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Secrets by key name, without values. `search` matches the key, or the owner's username or email,
 * case-insensitively; `afterKey` continues a page. An owner deleted since shows as its id only.
 */
export const listSecrets = async (
  db: CommonQueryMethods,
  query: { readonly search: string | null; readonly afterKey: string | null; readonly limit: number },
): Promise<{ readonly secrets: readonly SecretListing[]; readonly nextKey: string | null }> => {
  const pattern = query.search === null ? null : `%${escapeLike(query.search)}%`;
  const matches =
    pattern === null
      ? sql.fragment`TRUE`
      : sql.fragment`(s.key ILIKE ${pattern} OR u.username ILIKE ${pattern} OR u.email ILIKE ${pattern})`;
  const after = query.afterKey === null ? sql.fragment`TRUE` : sql.fragment`s.key > ${query.afterKey}`;
  const rows = await db.any(sql.type(row)`
    SELECT s.key, s.owner_user_id, u.username, u.email, s.created_at, s.updated_at
    FROM secrets s LEFT JOIN users u ON u.user_id = s.owner_user_id
    WHERE ${matches} AND ${after}
    ORDER BY s.key LIMIT ${query.limit + 1}`);
  const secrets = rows.slice(0, query.limit).map((r) => ({
    key: r.key,
    owner: r.owner_user_id === null ? null : { userId: r.owner_user_id, username: r.username ?? r.owner_user_id, email: r.email },
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  }));
  return { secrets, nextKey: rows.length > query.limit ? secrets[secrets.length - 1]!.key : null };
};
