import { sql } from 'slonik';
import { storedApiKeyExpiry } from '../../domain/apiKeys/apiKeyText.ts';
import { storedOptionalText, storedText } from '../../domain/base/textRule.ts';
import { loupeEvent } from '../../domain/loupeEvent.ts';
import type { Projection } from '../projection.ts';

/**
 * Live API keys: what the settings pages list and what the auth live model loads at start. Only
 * the key's SHA-256 is here (as in the events); the key itself is never stored.
 */
export const apiKeysProjection: Projection = {
  name: 'api_keys',
  /** The event types `apply` reads (a read-your-writes wait for another type passes while this read model is stopped). */
  eventTypes: ['ApiKeyIssued', 'ApiKeyRevoked', 'UserDeleted'],
  tables: ['api_keys'],
  migrations: [
    {
      id: 'api_keys/0001_api_keys',
      sql: `
        CREATE TABLE api_keys (
          key_id text PRIMARY KEY,
          -- global position (seq) of ApiKeyIssued: newest-first listings and their cursors
          ordinal bigint NOT NULL,
          kind text NOT NULL CHECK (kind IN ('system', 'user')),
          owner_user_id text,
          created_by text NOT NULL,
          name text NOT NULL,
          description text,
          expires_at timestamptz,
          key_hash text NOT NULL,
          created_at timestamptz NOT NULL
        );
        CREATE INDEX api_keys_kind_ordinal ON api_keys (kind, ordinal DESC);
        CREATE INDEX api_keys_owner ON api_keys (owner_user_id);
      `,
    },
  ],
  apply: async (tx, events) => {
    for (const stored of events) {
      const event = loupeEvent(stored);
      switch (event.type) {
        case 'ApiKeyIssued': {
          const d = event.data;
          await tx.query(sql.unsafe`
            INSERT INTO api_keys (key_id, ordinal, kind, owner_user_id, created_by, name, description, expires_at, key_hash, created_at)
            VALUES (${d.keyId}, ${stored.position.seq}, ${d.kind}, ${d.ownerUserId}, ${d.createdBy}, ${storedText(d.name)},
                    ${storedOptionalText(d.description)}, ${storedApiKeyExpiry(d.expiresAt, d.at)}::timestamptz, ${d.keyHash}, ${d.at}::timestamptz)
            ON CONFLICT (key_id) DO NOTHING`);
          break;
        }
        case 'ApiKeyRevoked':
          await tx.query(sql.unsafe`DELETE FROM api_keys WHERE key_id = ${event.data.keyId}`);
          break;
        case 'UserDeleted':
          // A user key dies with its owner; system keys the user created live on.
          await tx.query(sql.unsafe`DELETE FROM api_keys WHERE kind = 'user' AND owner_user_id = ${event.data.userId}`);
          break;
      }
    }
  },
};
