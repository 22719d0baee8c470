import type { ApiKeyRow } from '../../projections/apiKeys/apiKeyQueries.ts';
import { toGlobalId } from '../http/globalId.ts';
import { SystemApiKey, UserApiKey } from './types/apiKeyTypes.ts';

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
