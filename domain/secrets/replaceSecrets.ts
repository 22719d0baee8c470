import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import type { SecretKeyring } from './crypto.ts';
import { encryptSecret } from './crypto.ts';
import type { SecretsEvent } from './events.ts';
import { cleanSecretKey, cleanSecretValue } from './secretKey.ts';
import { secretsDecider } from './secretsDecider.ts';
import { SECRETS_STREAM } from './secretsStream.ts';

export type ReplaceSecretsInput = {
  /** `PUT /v1/secrets` body order; value null deletes the key. */
  readonly entries: readonly { readonly key: string; readonly value: string | null }[];
  readonly userId: string | null;
  readonly now: string;
};

/**
 * Validate, seal every value under the keyring's current key (bound to its key name), and apply
 * the batch atomically. Returns no events when nothing changes (e.g. only deletes of missing keys).
 */
export const replaceSecrets = (
  store: EventStore,
  keyring: SecretKeyring,
  input: ReplaceSecretsInput,
  context: CommandContext,
): Promise<CommandResult<SecretsEvent>> => {
  const entries = input.entries.map(({ key, value }) => {
    const name = cleanSecretKey(key);
    return { key: name, value: value === null ? null : encryptSecret(keyring, cleanSecretValue(value), name) };
  });
  return handleCommand(
    store,
    SECRETS_STREAM,
    secretsDecider,
    { type: 'ReplaceSecrets', entries, userId: input.userId, now: input.now },
    context,
  );
};
