import { gql } from '../api/graphql.ts';
import { http } from '../api/http.ts';
import type { AuthMethod, Role } from './viewer.ts';

export type UserRow = {
  readonly id: string;
  readonly email: string | null;
  readonly username: string;
  readonly role: Role;
  readonly authMethod: AuthMethod;
  readonly createdAt: string;
  readonly isManagementUser: boolean;
  readonly passwordNeedsReset: boolean;
};

type UsersReply = { users: { edges: { node: UserRow }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } };

const USERS = `query SettingsUsers($after: String) {
  users(first: 100, after: $after) {
    edges { node { id email username role authMethod createdAt isManagementUser passwordNeedsReset } }
    pageInfo { hasNextPage endCursor }
  }
}`;

export const fetchUsers = async (): Promise<UserRow[]> => {
  const users: UserRow[] = [];
  let after: string | null = null;
  do {
    const reply: UsersReply = await gql<UsersReply>(USERS, { after });
    users.push(...reply.users.edges.map((e) => e.node));
    after = reply.users.pageInfo.hasNextPage ? reply.users.pageInfo.endCursor : null;
  } while (after !== null);
  return users;
};

export type NewUser = { email: string; username: string; role: Role; password: string; sendWelcomeEmail: boolean };

export const createUser = (user: NewUser) =>
  http('/v1/users', {
    method: 'POST',
    json: {
      user: {
        email: user.email,
        username: user.username,
        role: user.role,
        auth_method: 'LOCAL',
        ...(user.password ? { password: user.password } : {}),
      },
      send_welcome_email: user.sendWelcomeEmail,
    },
  });

export const patchUser = (id: string, patch: { role?: Role; username?: string; password?: string }) =>
  http(`/v1/users/${encodeURIComponent(id)}`, { method: 'PATCH', json: patch });

export const deleteUser = (id: string) => http(`/v1/users/${encodeURIComponent(id)}`, { method: 'DELETE' });

/** PATCH /v1/user: one's own username. */
export const renameSelf = (username: string) => http('/v1/user', { method: 'PATCH', json: { username } });
