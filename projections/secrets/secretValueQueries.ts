import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { EncryptedValue } from '../../domain/secrets/crypto.ts';

const row = z.object({
  key: z.string(),
  sealed_value: z.custom<EncryptedValue>((v) => typeof v === 'object' && v !== null),
});

/**
 * The sealed (still encrypted) values of these secrets, by key. Only the admin-only GraphQL
 * `Secret.value` reads them, and opens them with the keyring at the edge; nothing is decrypted here.
 */
export const sealedSecretValues = async (db: CommonQueryMethods, keys: readonly string[]): Promise<Map<string, EncryptedValue>> => {
  if (keys.length === 0) return new Map();
  const rows = await db.any(sql.type(row)`SELECT key, sealed_value FROM secrets WHERE key = ANY(${sql.array([...keys], 'text')})`);
  return new Map(rows.map((r) => [r.key, r.sealed_value]));
};
