import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { AuthMethod } from '../../domain/identity/events.ts';
import type { BuiltInUser } from '../../domain/identity/events.ts';
import type { Role } from '../../domain/identity/roles.ts';

export type UserRow = {
  readonly userId: string;
  readonly ordinal: bigint;
  readonly username: string;
  readonly email: string | null;
  readonly role: Role;
  readonly authMethod: AuthMethod;
  readonly passwordNeedsReset: boolean;
  readonly builtIn: BuiltInUser | null;
  readonly oauth2ClientId: string | null;
  readonly oauth2UserId: string | null;
  readonly ldapUniqueId: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
};

/** A `users` row as stored; other readers pick the columns they need from it. */
export const userRowSchema = z.object({
  user_id: z.string(),
  ordinal: z.bigint(),
  username: z.string(),
  email: z.string().nullable(),
  role: z.enum(['SYSTEM', 'ADMIN', 'MEMBER', 'VIEWER']),
  auth_method: z.enum(['LOCAL', 'OAUTH2', 'LDAP']),
  password_needs_reset: z.boolean(),
  built_in: z.enum(['system', 'default_admin']).nullable(),
  oauth2_client_id: z.string().nullable(),
  oauth2_user_id: z.string().nullable(),
  ldap_unique_id: z.string().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});

const COLUMNS = sql.fragment`user_id, ordinal, username, email, role, auth_method, password_needs_reset, built_in,
  oauth2_client_id, oauth2_user_id, ldap_unique_id, created_at, updated_at`;

const toUser = (r: z.infer<typeof userRowSchema>): UserRow => ({
  userId: r.user_id,
  ordinal: r.ordinal,
  username: r.username,
  email: r.email,
  role: r.role,
  authMethod: r.auth_method,
  passwordNeedsReset: r.password_needs_reset,
  builtIn: r.built_in,
  oauth2ClientId: r.oauth2_client_id,
  oauth2UserId: r.oauth2_user_id,
  ldapUniqueId: r.ldap_unique_id,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

export const findUser = async (db: CommonQueryMethods, userId: string): Promise<UserRow | null> => {
  const found = await db.maybeOne(sql.type(userRowSchema)`SELECT ${COLUMNS} FROM users WHERE user_id = ${userId}`);
  return found === null ? null : toUser(found);
};

export const findUsers = async (db: CommonQueryMethods, userIds: readonly string[]): Promise<Map<string, UserRow>> => {
  if (userIds.length === 0) return new Map();
  const rows = await db.any(sql.type(userRowSchema)`SELECT ${COLUMNS} FROM users WHERE user_id = ANY(${sql.array([...userIds], 'text')})`);
  return new Map(rows.map((r) => [r.user_id, toUser(r)]));
};

/**
 * Newest first. `fromUserId` is inclusive (the reference's cursor is the first item of the page);
 * null when that user does not exist. One more row than `limit` tells whether a next page exists.
 */
export const listUsers = async (
  db: CommonQueryMethods,
  page: { readonly fromUserId: string | null; readonly limit: number },
): Promise<{ readonly users: readonly UserRow[]; readonly nextUserId: string | null } | null> => {
  let bound = sql.fragment`TRUE`;
  if (page.fromUserId !== null) {
    const ordinal = await db.maybeOneFirst(
      sql.type(z.object({ ordinal: z.bigint() }))`SELECT ordinal FROM users WHERE user_id = ${page.fromUserId}`,
    );
    if (ordinal === null) return null;
    bound = sql.fragment`ordinal <= ${ordinal}`;
  }
  const rows = await db.any(
    sql.type(userRowSchema)`SELECT ${COLUMNS} FROM users WHERE ${bound} ORDER BY ordinal DESC LIMIT ${page.limit + 1}`,
  );
  const users = rows.slice(0, page.limit).map(toUser);
  return { users, nextUserId: rows.length > page.limit ? rows[page.limit]!.user_id : null };
};
