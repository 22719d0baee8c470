import { DomainError } from '../errors.ts';
import type { EventStore } from '../eventstore/types.ts';
import { handleCommand, type CommandContext, type CommandResult } from '../handleCommand.ts';
import { loadState } from '../readAndFold.ts';
import type { PromptLabelCommand } from './commands.ts';
import type { PromptEvent, PromptLabelEvent } from './events.ts';
import { promptLabelDecider } from './promptLabelDecider.ts';
import { PROMPT_LABELS_STREAM } from './promptStream.ts';
import { changePrompt } from './changePrompt.ts';

/** Creating, changing or deleting a label, decided on the one labels stream. */
export const changePromptLabels = (
  store: EventStore,
  command: PromptLabelCommand,
  context: CommandContext,
): Promise<CommandResult<PromptLabelEvent>> => handleCommand(store, PROMPT_LABELS_STREAM, promptLabelDecider, command, context);

/**
 * Sets the labels a prompt carries. The labels are checked against their own stream first; one
 * deleted meanwhile is dropped by the read model (a link needs its label).
 */
export const setPromptLabels = async (
  store: EventStore,
  prompt: { readonly name: string; readonly promptId: string },
  labelIds: readonly number[],
  context: CommandContext,
): Promise<CommandResult<PromptEvent>> => {
  const labels = await loadState(store, PROMPT_LABELS_STREAM, promptLabelDecider);
  const missing = labelIds.find((id) => !labels.labels.has(id));
  if (missing !== undefined) throw new DomainError('prompt_label_not_found', `Prompt label ${missing} not found`, 'not_found');
  return changePrompt(store, prompt.name, { type: 'SetPromptLabels', promptId: prompt.promptId, labelIds }, context);
};
