import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import type { RevokeApiKey } from './apiKeyDecider.ts';
import { apiKeyDecider } from './apiKeyDecider.ts';
import { apiKeyStream } from './apiKeyStream.ts';
import type { ApiKeyEvent } from './events.ts';

export const revokeApiKey = (store: EventStore, command: RevokeApiKey, context: CommandContext): Promise<CommandResult<ApiKeyEvent>> =>
  handleCommand(store, apiKeyStream(command.keyId), apiKeyDecider, command, context);
