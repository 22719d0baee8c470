import { sql } from 'slonik';
import { INDEXED_TEXT_MAX_LENGTH, storedText } from '../../domain/base/textRule.ts';
import { isEventOf } from '../../domain/loupeEvent.ts';
import type { Projection } from '../projection.ts';

/**
 * The settings page's list of secrets (key, owner, dates) and each value still sealed with
 * AES-256-GCM exactly as in the event: nothing here decrypts, and no query returns the value.
 */
export const secretsProjection: Projection = {
  name: 'secrets',
  /** The event types `apply` reads (a read-your-writes wait for another type passes while this read model is stopped). */
  eventTypes: ['SecretsReplaced'],
  tables: ['secrets'],
  migrations: [
    {
      id: 'secrets/0001_secrets',
      sql: `
        CREATE TABLE secrets (
          key text PRIMARY KEY,
          sealed_value jsonb NOT NULL,
          owner_user_id text,
          created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL
        );
      `,
    },
  ],
  apply: async (tx, events) => {
    for (const stored of events) {
      if (!isEventOf(stored, ['SecretsReplaced'])) continue;
      const { data } = stored;
      for (const { key, value } of data.upserted) {
        await tx.query(sql.unsafe`
          INSERT INTO secrets (key, sealed_value, owner_user_id, created_at, updated_at)
          VALUES (${storedText(key, INDEXED_TEXT_MAX_LENGTH)}, ${sql.jsonb(value)}, ${data.userId}, ${data.at}::timestamptz, ${data.at}::timestamptz)
          ON CONFLICT (key) DO UPDATE SET sealed_value = excluded.sealed_value, owner_user_id = excluded.owner_user_id,
            updated_at = excluded.updated_at`);
      }
      if (data.deleted.length > 0) {
        const keys = data.deleted.map((key) => storedText(key, INDEXED_TEXT_MAX_LENGTH));
        await tx.query(sql.unsafe`DELETE FROM secrets WHERE key = ANY(${sql.array(keys, 'text')})`);
      }
    }
  },
};
