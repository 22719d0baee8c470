import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import type { EncryptedValue } from './crypto.ts';
import type { SecretsEvent } from './events.ts';
import { cleanSecretKey } from './secretKey.ts';

export type ReplaceSecrets = {
  readonly type: 'ReplaceSecrets';
  /** In request order; a later entry for the same key wins. null deletes. */
  readonly entries: readonly { readonly key: string; readonly value: EncryptedValue | null }[];
  readonly userId: string | null;
  readonly now: string;
};

export type SecretsState = { readonly keys: ReadonlySet<string> };

const isSealed = (value: unknown): value is EncryptedValue =>
  typeof value === 'object' &&
  value !== null &&
  ['keyId', 'iv', 'ciphertext', 'tag'].every((field) => typeof (value as Record<string, unknown>)[field] === 'string');

const decide = (c: ReplaceSecrets, state: SecretsState): SecretsEvent[] => {
  if (c.entries.length === 0) throw new DomainError('secrets_required', 'At least one secret is required', 'invalid');
  const last = new Map<string, EncryptedValue | null>();
  for (const entry of c.entries) {
    const key = cleanSecretKey(entry.key);
    // A value that is not sealed would put plaintext into the log for good.
    if (entry.value !== null && !isSealed(entry.value))
      throw new DomainError('secret_not_encrypted', 'Secret values must be encrypted', 'invalid');
    last.delete(key);
    last.set(key, entry.value);
  }
  const upserted = [...last].flatMap(([key, value]) => (value === null ? [] : [{ key, value }]));
  // Deleting a key that does not exist is a silent no-op, so it is left out of the event.
  const deleted = [...last].flatMap(([key, value]) => (value === null && state.keys.has(key) ? [key] : []));
  if (upserted.length === 0 && deleted.length === 0) return [];
  return [{ type: 'SecretsReplaced', data: { upserted, deleted, userId: c.userId, at: c.now } }];
};

const evolve = (state: SecretsState, event: SecretsEvent): SecretsState => {
  const keys = new Set(state.keys);
  for (const { key } of event.data.upserted) keys.add(key);
  for (const key of event.data.deleted) keys.delete(key);
  return { keys };
};

/** The decider of the single `secrets` stream (SECRETS_STREAM). */
export const secretsDecider: Decider<SecretsState, ReplaceSecrets, SecretsEvent> = {
  initialState: () => ({ keys: new Set() }),
  evolve,
  decide,
};
