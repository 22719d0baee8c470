import { gql } from '../api/graphql.ts';
import { http } from '../api/http.ts';

export type ApiKeyRow = {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly user?: { readonly id: string; readonly username: string; readonly email: string | null } | null;
};

export type KeyKind = 'system' | 'user';

const KEY_FIELDS = 'id name description createdAt expiresAt';

export const fetchSystemKeys = async (): Promise<ApiKeyRow[]> =>
  (await gql<{ systemApiKeys: ApiKeyRow[] }>(`query { systemApiKeys { ${KEY_FIELDS} } }`)).systemApiKeys;

export const fetchAllUserKeys = async (): Promise<ApiKeyRow[]> =>
  (await gql<{ userApiKeys: ApiKeyRow[] }>(`query { userApiKeys { ${KEY_FIELDS} user { id username email } } }`)).userApiKeys;

export const fetchOwnKeys = async (): Promise<ApiKeyRow[]> =>
  (await gql<{ viewerApiKeys: ApiKeyRow[] }>(`query { viewerApiKeys { ${KEY_FIELDS} } }`)).viewerApiKeys;

export type NewKey = { name: string; description: string | null; expiresAt: string | null };

/** The key's value is in this answer only: the server keeps its hash. */
export const createKey = async (kind: KeyKind, key: NewKey): Promise<{ id: string; key: string }> =>
  (
    await http<{ data: { id: string; key: string } }>(`/v1/${kind}/api_keys`, {
      method: 'POST',
      json: { data: { name: key.name, description: key.description, expires_at: key.expiresAt } },
    })
  ).data;

export const deleteKey = (kind: KeyKind, id: string) => http(`/v1/${kind}/api_keys/${encodeURIComponent(id)}`, { method: 'DELETE' });
