import type { UserRow } from '../../projections/identity/userQueries.ts';
import { toGlobalId } from '../http/globalId.ts';
import { User } from './types/identityTypes.ts';

export const userOf = (u: UserRow): User =>
  Object.assign(new User(), {
    id: toGlobalId('User', u.userId),
    userId: u.userId,
    username: u.username,
    email: u.email,
    role: u.role,
    authMethod: u.authMethod,
    passwordNeedsReset: u.passwordNeedsReset,
    isManagementUser: u.builtIn !== null,
    createdAt: u.createdAt,
    updatedAt: u.updatedAt,
  });
