import type { Migration } from '../../domain/eventstore/migration.ts';

export const usersMigrations: readonly Migration[] = [
  {
    id: 'users/0001_users',
    sql: `
      CREATE TABLE users (
        user_id text PRIMARY KEY,
        -- global position (seq) of UserCreated: the newest-first order of listings and their cursors
        ordinal bigint NOT NULL,
        username text NOT NULL,
        email text,
        role text NOT NULL,
        auth_method text NOT NULL,
        password_needs_reset boolean NOT NULL,
        built_in text,
        oauth2_client_id text,
        oauth2_user_id text,
        ldap_unique_id text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX users_ordinal ON users (ordinal DESC);
      -- Token ids and expiries only (a token is a JWT signed with SERVICE_SECRET carrying its id):
      -- what every process loads into its auth state at start.
      CREATE TABLE auth_tokens (
        token_id text PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('access', 'refresh', 'reset')),
        user_id text NOT NULL,
        paired_token_id text,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX auth_tokens_user ON auth_tokens (user_id);
    `,
  },
];
