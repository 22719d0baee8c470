import type { EventStore } from '../eventstore/types.ts';
import { handleCommand, type CommandContext, type CommandResult } from '../handleCommand.ts';
import { alertDecider } from './alertDecider.ts';
import { alertStream } from './alertStream.ts';
import type { AlertCommand } from './commands.ts';
import type { AlertEvent } from './events.ts';

/** Runs one command on a rule's stream (create, change, delete, or an evaluator's verdict). */
export const changeAlert = (store: EventStore, command: AlertCommand, context: CommandContext): Promise<CommandResult<AlertEvent>> =>
  handleCommand(store, alertStream(command.alertId), alertDecider, command, context);
