import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import type { DeleteUser } from './commands.ts';
import type { UserEvent } from './events.ts';
import { externalIdentityKey } from './externalIdentityKey.ts';
import { loadUser } from './loadUser.ts';
import { releaseUniqueValue } from './uniqueValues.ts';
import { userDecider } from './userDecider.ts';
import { userStream } from './userStream.ts';

/**
 * Delete a user and free their username, email and linked external identity for reuse. The user's sessions, reset token and
 * user API keys end with the `UserDeleted` event itself (see authState); if the process dies before
 * the releases, the next claimant takes the values over (a deleted holder has abandoned them).
 */
export const deleteUser = async (store: EventStore, command: DeleteUser, context: CommandContext): Promise<CommandResult<UserEvent>> => {
  const result = await handleCommand(store, userStream(command.userId), userDecider, command, context);
  const { profile, external } = await loadUser(store, command.userId);
  if (profile !== null) {
    await releaseUniqueValue(store, 'username', profile.username, command.userId, command.now, context);
    if (profile.email !== null) await releaseUniqueValue(store, 'email', profile.email, command.userId, command.now, context);
    const key = externalIdentityKey(profile.authMethod, external);
    if (key !== null) await releaseUniqueValue(store, 'external', key, command.userId, command.now, context);
  }
  return result;
};
