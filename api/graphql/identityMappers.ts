import type { ApiKeyRow } from '../../projections/apiKeys/apiKeyQueries.ts';
import type { SecretListing } from '../../projections/secrets/secretQueries.ts';
import type { UserRow } from '../../projections/identity/userQueries.ts';
import { toGlobalId } from '../http/globalId.ts';
import { Secret, SystemApiKey, User, UserApiKey } from './types/identityTypes.ts';

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

export const apiKeyOf = (
  k: Pick<ApiKeyRow, 'keyId' | 'kind' | 'ownerUserId' | 'name' | 'description' | 'createdAt' | 'expiresAt'>,
): UserApiKey | SystemApiKey =>
  k.kind === 'user'
    ? Object.assign(new UserApiKey(), {
        id: toGlobalId('UserApiKey', k.keyId),
        ownerUserId: k.ownerUserId!,
        name: k.name,
        description: k.description,
        createdAt: k.createdAt,
        expiresAt: k.expiresAt,
      })
    : Object.assign(new SystemApiKey(), {
        id: toGlobalId('SystemApiKey', k.keyId),
        name: k.name,
        description: k.description,
        createdAt: k.createdAt,
        expiresAt: k.expiresAt,
      });

/** Secret keys are identifiers (`[A-Za-z_][A-Za-z0-9_]*`), so they fit inside a global id as they are. */
export const secretOf = (s: SecretListing): Secret =>
  Object.assign(new Secret(), {
    id: toGlobalId('Secret', s.key),
    ownerUserId: s.owner?.userId ?? null,
    key: s.key,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  });
