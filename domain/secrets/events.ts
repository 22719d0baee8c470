import type { DomainEvent } from '../decider.ts';
import type { EncryptedValue } from '../base/encryptedValue.ts';

/**
 * One atomic batch on the single `secrets` stream: values set (sealed, never plaintext) and keys
 * removed (only keys that existed). `userId` (null when auth is off) becomes the owner of every
 * key set here; the settings list takes owner and dates from these events.
 */
export type SecretsReplaced = DomainEvent<
  'SecretsReplaced',
  {
    readonly upserted: readonly { readonly key: string; readonly value: EncryptedValue }[];
    readonly deleted: readonly string[];
    readonly userId: string | null;
    readonly at: string;
  }
>;

export type SecretsEvent = SecretsReplaced;
