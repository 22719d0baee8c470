import { randomUUID } from 'node:crypto';
import type { EventStore } from '../eventstore/types.ts';
import { handleCommand, type CommandContext, type CommandResult } from '../handleCommand.ts';
import type { JsonObject } from '../base/jsonValue.ts';
import type { PromptEvent } from './events.ts';
import { promptDecider } from './promptDecider.ts';
import { promptStream } from './promptStream.ts';
import { invocationParametersForWrite, type PromptVersionData } from './promptVersion.ts';

export type NewPromptVersion = {
  readonly name: string;
  readonly description: string | null;
  readonly metadata: JsonObject;
  readonly sourcePromptId: string | null;
  readonly version: PromptVersionData;
};

/**
 * Adds a version to the prompt of this name, creating the prompt when there is none. Invocation
 * parameters are stored as the reference stores them (OpenAI-compatible ones as `openai`).
 * Returns the new version's uuid with the command's result.
 */
export const addPromptVersion = async (
  store: EventStore,
  input: NewPromptVersion,
  context: CommandContext,
): Promise<CommandResult<PromptEvent> & { readonly versionId: string }> => {
  const versionId = randomUUID();
  const version = { ...input.version, invocationParameters: invocationParametersForWrite(input.version.invocationParameters) };
  const result = await handleCommand(
    store,
    promptStream(input.name),
    promptDecider,
    { type: 'AddPromptVersion', ...input, promptId: randomUUID(), versionId, version },
    context,
  );
  return { ...result, versionId };
};
