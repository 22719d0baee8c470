import type { EventStore } from '../eventstore/types.ts';
import { handleCommand, type CommandContext, type CommandResult } from '../handleCommand.ts';
import type { PromptCommand } from './commands.ts';
import type { PromptEvent } from './events.ts';
import { promptDecider } from './promptDecider.ts';
import { promptStream } from './promptStream.ts';

/** Any change to an existing prompt (tags, labels, description, metadata, deletion), on its own stream. */
export const changePrompt = (
  store: EventStore,
  promptName: string,
  command: Exclude<PromptCommand, { type: 'AddPromptVersion' }>,
  context: CommandContext,
): Promise<CommandResult<PromptEvent>> => handleCommand(store, promptStream(promptName), promptDecider, command, context);
