import type { EventStore } from '../eventstore/types.ts';
import type { CommandContext, CommandResult } from '../handleCommand.ts';
import { handleCommand } from '../handleCommand.ts';
import type { ChangeUsername } from './commands.ts';
import type { UserEvent } from './events.ts';
import { loadUser } from './loadUser.ts';
import { releaseQuietly } from './releaseQuietly.ts';
import { releaseUniqueValue, reserveUniqueValue } from './uniqueValues.ts';
import { userDecider } from './userDecider.ts';
import { usernameKey } from './username.ts';
import { userStream } from './userStream.ts';

/** Reserve the new name, rename, then free the old one (a change of case keeps the reservation). */
export const changeUsername = async (
  store: EventStore,
  command: ChangeUsername,
  context: CommandContext,
): Promise<CommandResult<UserEvent>> => {
  const { userId, now } = command;
  if (userDecider.decide(command, await loadUser(store, userId)).length === 0) return { events: [], position: null, revision: null };
  await reserveUniqueValue(store, 'username', command.username, userId, now, context);
  let result: CommandResult<UserEvent>;
  try {
    result = await handleCommand(store, userStream(userId), userDecider, command, context);
  } catch (error) {
    await releaseQuietly(store, 'username', command.username, userId, now, context);
    throw error;
  }
  for (const event of result.events) {
    if (event.type === 'UsernameChanged' && usernameKey(event.data.previousUsername) !== usernameKey(event.data.username)) {
      await releaseUniqueValue(store, 'username', event.data.previousUsername, userId, now, context);
    }
  }
  return result;
};
