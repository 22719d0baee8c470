import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import type { DeleteUser } from './commands.ts';
import type { UserEvent } from './events.ts';
import { loadUser } from './loadUser.ts';
import { releaseUniqueValue } from './uniqueValues.ts';
import { userDecider } from './userDecider.ts';
import { userStream } from './userStream.ts';

/**
 * Delete a user and free their username and email for reuse. The user's sessions, reset token and
 * user API keys end with the `UserDeleted` event itself (see authState); if the process dies before
 * the releases, the next claimant takes the values over (a deleted holder has abandoned them).
 */
export const deleteUser = async (store: EventStore, command: DeleteUser, context: CommandContext): Promise<CommandResult<UserEvent>> => {
  const result = await handleCommand(store, userStream(command.userId), userDecider, command, context);
  const { profile } = await loadUser(store, command.userId);
  if (profile !== null) {
    await releaseUniqueValue(store, 'username', profile.username, command.userId, command.now, context);
    if (profile.email !== null) await releaseUniqueValue(store, 'email', profile.email, command.userId, command.now, context);
  }
  return result;
};
