import { gql } from '../api/graphql.ts';
import { http } from '../api/http.ts';

export type SecretRow = {
  readonly id: string;
  readonly key: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly user: { readonly username: string; readonly email: string | null } | null;
};

type SecretsReply = { secrets: { edges: { node: SecretRow }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } };

const SECRETS = `query SettingsSecrets($search: String, $after: String) {
  secrets(first: 100, search: $search, after: $after) {
    edges { node { id key createdAt updatedAt user { username email } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

/** Key names, owners and dates: never the values (those are fetched one at a time, on reveal). */
export const fetchSecrets = async (search: string, signal?: AbortSignal): Promise<{ secrets: SecretRow[]; more: boolean }> => {
  const reply = await gql<SecretsReply>(SECRETS, { search: search.trim() || null, after: null }, signal);
  return { secrets: reply.secrets.edges.map((e) => e.node), more: reply.secrets.pageInfo.hasNextPage };
};

export const revealSecret = async (id: string): Promise<string> => {
  const reply = await gql<{ node: { value?: string } }>('query RevealSecret($id: ID!) { node(id: $id) { ... on Secret { value } } }', {
    id,
  });
  return reply.node.value ?? '';
};

/** Sets (or replaces) one secret; `null` deletes it. */
export const putSecret = (key: string, value: string | null) => http('/v1/secrets', { method: 'PUT', json: { secrets: [{ key, value }] } });
