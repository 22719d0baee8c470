import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import type { DeleteSavedFilter, SaveFilter } from './commands.ts';
import type { SavedFilterEvent } from './events.ts';
import { savedFilterDecider } from './savedFilterDecider.ts';
import { savedFilterStream } from './savedFilterStream.ts';

/** Saves a named filter of a project's list (the same name again replaces it). */
export const saveFilter = (
  store: EventStore,
  input: Omit<SaveFilter, 'type'>,
  context: CommandContext,
): Promise<CommandResult<SavedFilterEvent>> =>
  handleCommand(store, savedFilterStream(input.projectId), savedFilterDecider, { type: 'SaveFilter', ...input }, context);

export const deleteSavedFilter = (
  store: EventStore,
  input: Omit<DeleteSavedFilter, 'type'>,
  context: CommandContext,
): Promise<CommandResult<SavedFilterEvent>> =>
  handleCommand(store, savedFilterStream(input.projectId), savedFilterDecider, { type: 'DeleteSavedFilter', ...input }, context);
