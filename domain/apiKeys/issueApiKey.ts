import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import type { IssueApiKey } from './apiKeyDecider.ts';
import { apiKeyDecider } from './apiKeyDecider.ts';
import { apiKeyStream } from './apiKeyStream.ts';
import { generateApiKey } from './apiKeyValue.ts';
import type { ApiKeyEvent } from './events.ts';

export type IssueApiKeyInput = Omit<IssueApiKey, 'type' | 'keyId' | 'keyHash'> & { readonly keyId?: string };

/**
 * Generate a key and record its issue. The value is returned to show once to the creator; only
 * its hash reaches the log.
 */
export const issueApiKey = async (
  store: EventStore,
  input: IssueApiKeyInput,
  context: CommandContext,
): Promise<{ readonly keyId: string; readonly value: string; readonly result: CommandResult<ApiKeyEvent> }> => {
  const { keyId, value, keyHash } = generateApiKey(input.keyId);
  const result = await handleCommand(store, apiKeyStream(keyId), apiKeyDecider, { ...input, type: 'IssueApiKey', keyId, keyHash }, context);
  return { keyId, value, result };
};
