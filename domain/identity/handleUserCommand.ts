import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import type { ChangeUsername, CreateUser, DeleteUser, LinkExternalIdentity, SyncEmail, UserCommand } from './commands.ts';
import type { UserEvent } from './events.ts';
import { userDecider } from './userDecider.ts';
import { userStream } from './userStream.ts';

/**
 * Commands that touch only the user's stream. Creating, renaming, deleting, linking an external
 * identity and syncing an email also move reservations: use createUser, changeUsername,
 * deleteUser, linkExternalIdentity, syncEmail.
 */
export type PlainUserCommand = Exclude<UserCommand, CreateUser | ChangeUsername | DeleteUser | LinkExternalIdentity | SyncEmail>;

export const handleUserCommand = (
  store: EventStore,
  command: PlainUserCommand,
  context: CommandContext,
): Promise<CommandResult<UserEvent>> => handleCommand(store, userStream(command.userId), userDecider, command, context);
